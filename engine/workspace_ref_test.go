package engine

import (
	"context"
	"errors"
	"path"
	"strings"
	"testing"

	"cairn/internal/vfs"
)

// A lookup by prefix or title only reads: it works on a full disk, where
// the index it refreshes cannot be saved, as a listing does.
func TestResolveOnFullDisk(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	s := newSession(t, e.ws)
	id := s.ID()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// No saved index: the next lookup must build one and cannot save it.
	if err := e.mem.Remove(path.Join(e.ws.dir, "index.json")); err != nil && !vfs.IsNotExist(err) {
		t.Fatal(err)
	}
	e.faulty.Inject(vfs.Rule{Op: vfs.OpCreate, Err: errENOSPC})
	e.faulty.Inject(vfs.Rule{Op: vfs.OpWrite, Err: errENOSPC})
	for _, ref := range []string{id[:8], "hello", id} {
		got, err := e.ws.Resolve(ctx, ref)
		if err != nil {
			t.Fatalf("Resolve(%q) on a full disk: %v", ref, err)
		}
		if got != id {
			t.Fatalf("Resolve(%q) = %q, want %q", ref, got, id)
		}
	}
	if _, err := e.ws.Resolve(ctx, "nothing-like-it"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Resolve of an unknown reference on a full disk: %v, want ErrNotFound", err)
	}
}

// A fork names what is wrong: an item the session does not hold (not "no
// such session"), or a head with no item to fork at.
func TestForkWording(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	s := ws.Create(SessionOptions{})
	u, err := s.Append(ctx, Item{Type: User, Text: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = ws.Fork(ctx, s.ID(), "i-0000")
	if !errors.Is(err, ErrNotFound) || err.Error() != `engine: no item "i-0000" in session `+s.ID() {
		t.Fatalf("fork at an unknown item: %v", err)
	}
	if _, err := s.Revert(ctx, u.ID, RevertConversation); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = ws.Fork(ctx, s.ID(), "")
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "has no head item") {
		t.Fatalf("fork at an empty head: %v", err)
	}
}
