package bgwork

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"cairn/internal/vfs"
	"cairn/journal"
)

const ledgerName = "tasks/s1/work.jsonl"

// fileSink is an owner's conversation for the tests: a journal of item
// lines, as a session's items journal is, synced on Sync.
type fileSink struct {
	mu     sync.Mutex
	fsys   vfs.FS
	name   string
	w      *journal.Writer
	held   map[string]bool // items durable (read at open, or put and synced)
	put    []string        // put since the last Sync
	broken error
}

type sinkLine struct {
	V     int    `json:"v"`
	Kind  string `json:"kind"`
	ID    string `json:"id"`
	Owner string `json:"owner,omitempty"`
	Work  string `json:"work"`
	What  string `json:"what"`
	Wake  bool   `json:"wake,omitempty"`
}

func openSink(t testing.TB, fsys vfs.FS, name string) *fileSink {
	t.Helper()
	s, err := tryOpenSink(fsys, name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func tryOpenSink(fsys vfs.FS, name string) (*fileSink, error) {
	s := &fileSink{fsys: fsys, name: name, held: map[string]bool{}}
	items, err := readSink(fsys, name)
	if err != nil {
		return nil, err
	}
	for _, l := range items {
		s.held[l.ID] = true
	}
	return s, nil
}

// readSink is the items of the sink journal in order.
func readSink(fsys vfs.FS, name string) ([]sinkLine, error) {
	var out []sinkLine
	_, err := journal.Read(fsys, name, func(b []byte) error {
		var l sinkLine
		if json.Unmarshal(b, &l) == nil && l.Kind == "item" {
			out = append(out, l)
		}
		return nil
	})
	if err != nil && !vfs.IsNotExist(err) {
		return nil, err
	}
	return out, nil
}

func (s *fileSink) Has(_ context.Context, item string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.broken != nil {
		return false, s.broken
	}
	return s.held[item], nil
}

func (s *fileSink) Put(_ context.Context, d Delivery) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.broken != nil {
		return s.broken
	}
	if s.w == nil {
		w, _, err := journal.OpenWriter(s.fsys, s.name, journal.Options{Sync: journal.SyncManual})
		if err != nil {
			return err
		}
		s.w = w
	}
	what := d.Kind + ":" + d.Outcome + d.Title
	if err := s.w.Append(sinkLine{V: 1, Kind: "item", ID: d.Item, Owner: d.Owner, Work: d.Work, What: what, Wake: d.Wake}); err != nil {
		s.broken = err
		return err
	}
	s.put = append(s.put, d.Item)
	return nil
}

func (s *fileSink) Sync(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.broken != nil {
		return s.broken
	}
	if s.w != nil {
		if err := s.w.Sync(); err != nil {
			s.broken = err
			return err
		}
	}
	for _, id := range s.put {
		s.held[id] = true
	}
	s.put = nil
	return nil
}

func (s *fileSink) Close() {
	if s.w != nil {
		s.w.CloseUnsynced()
	}
}

// clock is a test clock that moves a millisecond a reading.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Millisecond)
	return c.t
}

// seqItems makes item ids i-000001, i-000002, ... so tests can name them.
func seqItems() func() string {
	var mu sync.Mutex
	n := 0
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fmt.Sprintf("i-%06d", n)
	}
}

func openLedger(t testing.TB, fsys vfs.FS, opt Options) (*Ledger, []Work) {
	t.Helper()
	if opt.Now == nil {
		opt.Now = newClock().Now
	}
	l, cut, err := Open(fsys, ledgerName, opt)
	if err != nil {
		t.Fatal(err)
	}
	return l, cut
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

func wantErr(t testing.TB, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("err = %v, want %v", err, target)
	}
}

// checkFold holds a ledger's state to the fold of its journal: what is in
// memory is what a reader (and the next owner) reads.
func checkFold(t testing.TB, l *Ledger) {
	t.Helper()
	mem := l.State()
	disk, err := Read(l.fsys, l.name)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(struct {
		W []Work
		D []*Delivery
		S bool
	}{mem.Works(), mem.deliveries, mem.stopped})
	b, _ := json.Marshal(struct {
		W []Work
		D []*Delivery
		S bool
	}{disk.Works(), disk.deliveries, disk.stopped})
	if string(a) != string(b) {
		t.Fatalf("memory and journal disagree:\n%s\n%s", a, b)
	}
	if disk.Skipped != 0 {
		t.Fatalf("the journal holds %d lines the fold skips", disk.Skipped)
	}
}
