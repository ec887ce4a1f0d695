package inbox

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"cairn/internal/vfs"
	"cairn/journal"
)

// Names in the test filesystems: a session's inbox and lock, as the
// engine lays them out.
const (
	inboxA = "sessions/a.inbox.jsonl"
	lockA  = "sessions/a.lock"
	inboxB = "sessions/b.inbox.jsonl"
	lockB  = "sessions/b.lock"
)

// convo is a receiver's conversation for the tests: a journal of items.
type convo struct {
	mu     sync.Mutex
	fsys   vfs.FS
	name   string
	w      *journal.Writer
	held   map[string]bool
	put    []string
	broken error
}

type convoLine struct {
	V    int    `json:"v"`
	Kind string `json:"kind"`
	ID   string `json:"id"`
	Msg  string `json:"msg"`
	From string `json:"from,omitempty"`
	Text string `json:"text"`
}

func openConvo(fsys vfs.FS, name string) (*convo, error) {
	c := &convo{fsys: fsys, name: name, held: map[string]bool{}}
	items, err := readConvo(fsys, name)
	for _, it := range items {
		c.held[it.ID] = true
	}
	return c, err
}

func mustConvo(t testing.TB, fsys vfs.FS, name string) *convo {
	t.Helper()
	c, err := openConvo(fsys, name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func readConvo(fsys vfs.FS, name string) ([]convoLine, error) {
	var out []convoLine
	_, err := journal.Read(fsys, name, func(b []byte) error {
		var l convoLine
		if json.Unmarshal(b, &l) == nil && l.Kind == "item" {
			out = append(out, l)
		}
		return nil
	})
	if vfs.IsNotExist(err) {
		err = nil
	}
	return out, err
}

func (c *convo) Has(_ context.Context, item string) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken != nil {
		return false, c.broken
	}
	return c.held[item], nil
}

func (c *convo) Put(_ context.Context, d Delivery) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken != nil {
		return c.broken
	}
	if c.w == nil {
		w, _, err := journal.OpenWriter(c.fsys, c.name, journal.Options{Sync: journal.SyncManual})
		if err != nil {
			return err
		}
		c.w = w
	}
	if err := c.w.Append(convoLine{V: 1, Kind: "item", ID: d.Item, Msg: d.ID, From: d.From, Text: d.Text}); err != nil {
		c.broken = err
		return err
	}
	c.put = append(c.put, d.Item)
	return nil
}

func (c *convo) Sync(context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken != nil {
		return c.broken
	}
	if c.w != nil {
		if err := c.w.Sync(); err != nil {
			c.broken = err
			return err
		}
	}
	for _, id := range c.put {
		c.held[id] = true
	}
	c.put = nil
	return nil
}

func (c *convo) Close() {
	if c.w != nil {
		c.w.CloseUnsynced()
	}
}

// texts is the texts a conversation holds, in order.
func texts(t testing.TB, fsys vfs.FS, name string) []string {
	t.Helper()
	items, err := readConvo(fsys, name)
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, it := range items {
		out = append(out, it.Text)
	}
	return out
}

func newMem(t testing.TB) *vfs.Mem {
	t.Helper()
	m := vfs.NewMem()
	if err := vfs.MkdirAllDurable(m, "sessions", vfs.DirPerm); err != nil {
		t.Fatal(err)
	}
	return m
}

func must[T any](v T, err error) func(testing.TB) T {
	return func(t testing.TB) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func must0(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func clockAt() func() time.Time {
	t := time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(time.Millisecond)
		return t
	}
}

var _ = fmt.Sprint

// Read folds the inbox name without writing: the messages in order and
// whether each was delivered, for a reader that does not own the session.
func Read(fsys vfs.FS, name string) ([]Message, []bool, error) {
	b := &Inbox{fsys: fsys, name: name, by: map[string]*entry{}}
	if err := b.refresh(); err != nil {
		return nil, nil, err
	}
	msgs := make([]Message, len(b.order))
	taken := make([]bool, len(b.order))
	for i, e := range b.order {
		msgs[i], taken[i] = e.Message, e.taken
	}
	return msgs, taken, nil
}
