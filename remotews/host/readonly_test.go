package host

import (
	"context"
	"errors"
	"testing"

	"cairn/engine"
	"cairn/remotews"

	"github.com/google/uuid"
)

// A session opened to be read only works while another connection owns
// it (as a local read beside a REPL): its snapshots and change records
// read as the owner's; every call that changes files is refused on it,
// and the owner's file and records stay as they were. A session the host
// holds nothing of is not found, and nothing is made for it.
func TestReadOnlyOpen(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	owner, _ := e.connect(remotews.Options{})
	sid := uuid.NewString()
	s, err := owner.Session(ctx, sid, owner.Binding(), false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write(ctx, "", "", "f.txt", []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx); err != nil {
		t.Fatal(err)
	}

	reader, _ := e.connect(remotews.Options{})
	r, err := reader.ReadSession(ctx, sid, reader.Binding())
	if err != nil {
		t.Fatalf("read-only open beside the owner: %v", err)
	}
	l, err := r.Snapshots(ctx)
	if err != nil || len(l.Snapshots) != 1 || l.Session != sid {
		t.Fatalf("snapshots read only: %+v %v", l, err)
	}
	if _, err := r.Write(ctx, "", "", "f.txt", []byte("two")); !errors.Is(err, engine.ErrRefused) {
		t.Fatalf("write on a read-only host session: %v, want refused", err)
	}
	if _, err := r.Undo(ctx); !errors.Is(err, engine.ErrRefused) {
		t.Fatalf("undo on a read-only host session: %v, want refused", err)
	}
	if err := r.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if e.read("f.txt") != "one" {
		t.Fatalf("f.txt %q after the refused calls", e.read("f.txt"))
	}
	// The owner still holds it, and its undo stack is whole.
	if _, err := s.Undo(ctx); err != nil || e.read("f.txt") != "<"+"open "+e.ws+"/f.txt: no such file or directory>" {
		t.Fatalf("the owner's undo: %v, f.txt %q", err, e.read("f.txt"))
	}
	if _, err := reader.ReadSession(ctx, uuid.NewString(), reader.Binding()); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("read-only open of a session the host has none of: %v, want not found", err)
	}
}
