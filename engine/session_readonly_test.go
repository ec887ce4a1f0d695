package engine

import (
	"context"
	"errors"
	"maps"
	"path"
	"strings"
	"syscall"
	"testing"

	"cairn/internal/vfs"
)

// readOnly makes every call of e's filesystem that would change something
// fail as on a read-only mount.
func (e *memEnv) readOnly() {
	for _, op := range []vfs.Op{vfs.OpCreate, vfs.OpWrite, vfs.OpRename, vfs.OpMkdir, vfs.OpRemove, vfs.OpTruncate, vfs.OpLock, vfs.OpChmod, vfs.OpSymlink} {
		e.faulty.Inject(vfs.Rule{Op: op, Err: syscall.EROFS})
	}
}

// contents maps every file of the store to its content.
func (e *memEnv) contents(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, n := range stateFiles(t, e.mem, ".") {
		b, err := vfs.ReadFile(e.mem, n)
		if err != nil {
			t.Fatal(err)
		}
		out[n] = string(b)
	}
	return out
}

// A session in a state folder that cannot be written is found by prefix and
// resumed read-only with one notice (Degrade, as the REPL opens it): its
// conversation and snapshots are there, new work goes on in memory, undo
// says why it cannot run, and not a byte of the state folder changes.
// Without Degrade, Open says the session cannot be written.
func TestResumeReadOnly(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	s := newSession(t, e.ws)
	if _, err := s.ToolWrite(ctx, "a.txt", []byte("one\n")); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	e.mem.Remove(path.Join(e.ws.dir, "index.json"))
	before := e.contents(t)
	e.readOnly()

	id, err := e.ws.Resolve(ctx, s.ID()[:8])
	if err != nil || id != s.ID() {
		t.Fatalf("Resolve by prefix in a read-only folder: %q, %v", id, err)
	}
	_, err = e.ws.Open(ctx, id, SessionOptions{})
	var busy *BusyError
	if err == nil || errors.As(err, &busy) || !strings.Contains(err.Error(), "cannot be written") {
		t.Fatalf("Open without Degrade: %v", err)
	}

	var notices []string
	r, err := e.ws.Open(ctx, id, SessionOptions{Degrade: true, Notice: func(m string) { notices = append(notices, m) }})
	if err != nil {
		t.Fatalf("Open with Degrade in a read-only folder: %v", err)
	}
	if tr := r.Transcript(); len(tr) != 1 || tr[0].Text != "hello" {
		t.Fatalf("transcript %+v", tr)
	}
	if l, err := r.Snapshots(ctx); err != nil || len(l.Snapshots) != 1 {
		t.Fatalf("snapshots %+v, %v", l, err)
	}
	if _, err := r.Append(ctx, Item{Type: User, Text: "more"}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Append(ctx, Item{Type: Assistant, Text: "ok"}); err != nil {
		t.Fatal(err)
	}
	if err := r.EndTurn(ctx, Turn{}); err != nil {
		t.Fatal(err)
	}
	if n := len(r.Transcript()); n != 3 {
		t.Fatalf("the conversation in memory holds %d items", n)
	}
	if _, err := r.Undo(ctx); err == nil || !strings.Contains(err.Error(), "cannot be written") {
		t.Fatalf("undo in a read-only session: %v", err)
	}
	if r.Recorded() {
		t.Fatal("a read-only session says it is recorded")
	}
	if _, err := r.Fork(ctx, ""); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("fork of a read-only session: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "read-only") {
		t.Fatalf("notices %q, want one saying read-only", notices)
	}
	e.faulty.Reset()
	if after := e.contents(t); !maps.Equal(after, before) {
		t.Fatal("the read-only state folder changed")
	}
	if b, _ := vfs.ReadFile(e.mem, lockName(e.ws.dir, id)); len(b) != 0 {
		t.Fatalf("lock holds %q", b)
	}
}
