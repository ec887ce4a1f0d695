package inbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"cairn/internal/vfs"
)

// TestSendToLive: a message to a live session is kept and delivered
// once, in order, as items of its conversation.
func TestSendToLive(t *testing.T) {
	ctx := context.Background()
	m := newMem(t)
	lock := must(m.Lock(lockA))(t) // session a is open
	defer lock.Release()
	b := must(Open(m, inboxA, Options{Now: clockAt()}))(t)
	var sent []Sent
	for i := range 3 {
		s := must(Send(m, inboxA, lockA, "b-session", fmt.Sprintf("message %d", i), SendOptions{}))(t)
		if s.Queued || !validMsgID(s.ID) {
			t.Fatalf("%+v", s)
		}
		sent = append(sent, s)
	}
	if p := must(b.Pending())(t); len(p) != 3 || p[0].ID != sent[0].ID || p[2].Text != "message 2" || p[1].From != "b-session" {
		t.Fatalf("pending %+v", p)
	}
	c := mustConvo(t, m, "a.items.jsonl")
	if n := must(b.Deliver(ctx, c))(t); n != 3 {
		t.Fatal(n)
	}
	if n := must(b.Deliver(ctx, c))(t); n != 0 {
		t.Fatalf("delivered %d again", n)
	}
	if got := strings.Join(texts(t, m, "a.items.jsonl"), "|"); got != "message 0|message 1|message 2" {
		t.Fatal(got)
	}
	msgs, taken := must2(Read(m, inboxA))(t)
	if len(msgs) != 3 || !taken[0] || !taken[2] || b.Skipped != 0 {
		t.Fatalf("%+v %v skipped %d", msgs, taken, b.Skipped)
	}
	// One more, after the others were delivered.
	must(Send(m, inboxA, lockA, "", "a script's", SendOptions{}))(t)
	if n := must(b.Deliver(ctx, c))(t); n != 1 {
		t.Fatal(n)
	}
	if got := texts(t, m, "a.items.jsonl"); len(got) != 4 || got[3] != "a script's" {
		t.Fatal(got)
	}
}

func must2[A, B any](a A, b B, err error) func(testing.TB) (A, B) {
	return func(t testing.TB) (A, B) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return a, b
	}
}

// TestSendToNotLive: a message to a session no process owns is refused,
// nothing written, unless it asks to be queued; a queued message is
// delivered when the session is next opened. A session without a lock
// file gets none made by the test.
func TestSendToNotLive(t *testing.T) {
	ctx := context.Background()
	m := newMem(t)
	_, err := Send(m, inboxA, lockA, "", "hello?", SendOptions{})
	if !errors.Is(err, ErrNotLive) {
		t.Fatalf("%v", err)
	}
	for _, name := range []string{inboxA, lockA} {
		if _, err := m.Stat(name); !vfs.IsNotExist(err) {
			t.Fatalf("%s: %v: a refused message made it", name, err)
		}
	}
	// Once owned and let go: the lock file stays, unheld.
	l := must(m.Lock(lockA))(t)
	must0(t, l.Release())
	_, err = Send(m, inboxA, lockA, "", "hello?", SendOptions{})
	if !errors.Is(err, ErrNotLive) {
		t.Fatalf("%v", err)
	}
	s := must(Send(m, inboxA, lockA, "", "for later", SendOptions{Queue: true}))(t)
	if !s.Queued {
		t.Fatalf("%+v", s)
	}
	l = must(m.Lock(lockA))(t) // the session is opened
	defer l.Release()
	b := must(Open(m, inboxA, Options{}))(t)
	must(b.Deliver(ctx, mustConvo(t, m, "a.items.jsonl")))(t)
	if got := texts(t, m, "a.items.jsonl"); len(got) != 1 || got[0] != "for later" {
		t.Fatal(got)
	}
}

// TestCheckText: a message needs text, UTF-8, at most MaxText bytes.
func TestCheckText(t *testing.T) {
	m := newMem(t)
	l := must(m.Lock(lockA))(t)
	defer l.Release()
	for _, text := range []string{"", " \n\t", "a\xffb", strings.Repeat("x", MaxText+1)} {
		if _, err := Send(m, inboxA, lockA, "", text, SendOptions{}); !errors.Is(err, ErrInvalid) {
			t.Errorf("%.20q: %v", text, err)
		}
	}
	if _, err := m.Stat(inboxA); !vfs.IsNotExist(err) {
		t.Fatal("a refused message was written")
	}
	must(Send(m, inboxA, lockA, "", strings.Repeat("x", MaxText), SendOptions{}))(t)
}

// TestTornLines: a torn line a dead writer left (in the middle of the
// file or at its end) costs only its own message; the line glued after it
// is read, and a final run without "\n" is read once it is complete.
func TestTornLines(t *testing.T) {
	ctx := context.Background()
	m := newMem(t)
	l := must(m.Lock(lockA))(t)
	defer l.Release()
	must(Send(m, inboxA, lockA, "", "first", SendOptions{}))(t)
	full, err := encode(&line{Kind: KindMsg, ID: "m-00000000000000aa", Text: "lost in a crash"})
	must0(t, err)
	must0(t, appendLine(m, inboxA, full[:len(full)/2])) // a writer killed mid-line
	must(Send(m, inboxA, lockA, "", "glued after it", SendOptions{}))(t)
	must0(t, appendLine(m, inboxA, []byte("\x00\x00garbage")))
	must(Send(m, inboxA, lockA, "", "after garbage", SendOptions{}))(t)
	b := must(Open(m, inboxA, Options{}))(t)
	c := mustConvo(t, m, "a.items.jsonl")
	must(b.Deliver(ctx, c))(t)
	// A line a reader sees while its one write is still being copied in:
	// read once it has its "\n" (no other line comes between, as the
	// kernel appends a write whole).
	next, err := encode(&line{Kind: KindMsg, ID: "m-00000000000000bb", Text: "in flight"})
	must0(t, err)
	must0(t, appendLine(m, inboxA, next[:10]))
	if p := must(b.Pending())(t); len(p) != 0 {
		t.Fatalf("a line without its end was read: %+v", p)
	}
	must0(t, appendLine(m, inboxA, next[10:]))
	must(b.Deliver(ctx, c))(t)
	got := strings.Join(texts(t, m, "a.items.jsonl"), "|")
	if got != "first|glued after it|after garbage|in flight" {
		t.Fatalf("delivered %q", got)
	}
	if b.Skipped != 0 {
		t.Fatalf("skipped %d: every glued line was read", b.Skipped)
	}
}

// TestDecodeResync: a line that does not parse is read from its last
// line start, and only a line of ours is taken.
func TestDecodeResync(t *testing.T) {
	var l line
	for in, ok := range map[string]bool{
		`{"v":1,"kind":"msg","id":"m-1","text":"x"}`:                       true,
		`{"v":1,"ki{"v":1,"kind":"taken","msg":"m-1"}`:                     true,
		"\x00\x00" + `{"v":1,"kind":"taken","msg":"m-1"}`:                  true,
		`{"v":1,"kind":"msg","text":"say {\"v\":1,\"kind\":\"x\"} to me"}`: true,
		`{"v":2,"kind":"msg"}`:                                             false,
		`garbage`:                                                          false,
		`{"v":1,"kind":"msg","te`:                                          false,
	} {
		if got := decode([]byte(in), &l); got != ok {
			t.Errorf("%s: %v", in, got)
		}
	}
	if !decode([]byte(`{"v":1,"ki{"v":1,"kind":"take","msg":"m-9","item":"i-1"}`), &l) || l.Msg != "m-9" || l.Item != "i-1" {
		t.Fatalf("%+v", l)
	}
}

// TestLiveNeedsNoLockFile: Live on a session that never had an owner says
// no and makes nothing.
func TestLiveNeedsNoLockFile(t *testing.T) {
	d, err := vfs.OpenDisk(t.TempDir())
	must0(t, err)
	if live, err := Live(d, "x.lock"); live || err != nil {
		t.Fatal(live, err)
	}
	if _, err := d.Stat("x.lock"); !os.IsNotExist(err) {
		t.Fatal(err)
	}
}

// TestSentDuringDelivery: a message that arrives while a delivery writes
// its takes is left for the next delivery, in its place in the order.
func TestSentDuringDelivery(t *testing.T) {
	ctx := context.Background()
	m := newMem(t)
	l := must(m.Lock(lockA))(t)
	defer l.Release()
	must(Send(m, inboxA, lockA, "", "before", SendOptions{}))(t)
	n := 0
	b := must(Open(m, inboxA, Options{NewItem: func() string {
		n++
		if n == 1 { // a sender in another process, between the take and the batch
			must(Send(m, inboxA, lockA, "", "during", SendOptions{}))(t)
		}
		return fmt.Sprintf("i-%016x", n)
	}}))(t)
	c := mustConvo(t, m, "a.items.jsonl")
	if got := must(b.Deliver(ctx, c))(t); got != 1 {
		t.Fatalf("delivered %d", got)
	}
	if got := must(b.Deliver(ctx, c))(t); got != 1 {
		t.Fatalf("delivered %d", got)
	}
	if got := strings.Join(texts(t, m, "a.items.jsonl"), "|"); got != "before|during" {
		t.Fatal(got)
	}
}
