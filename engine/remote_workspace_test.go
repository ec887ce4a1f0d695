package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A session bound to a remote workspace keeps the binding in its journal
// and record; an open that would run its files here is refused before it
// writes anything; one that runs them remotely opens; a second binding to
// another workspace is refused.
func TestRemoteBinding(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	s := ws.Create(SessionOptions{})
	b := RemoteWorkspace{Host: "me@devbox", Path: "/srv/proj", Identity: "id-1", Generation: 2}
	if err := s.SetRemote(ctx, b); err != nil {
		t.Fatal(err)
	}
	if err := s.SetRemote(ctx, b); err != nil {
		t.Fatalf("the same binding again: %v", err)
	}
	other := b
	other.Generation = 3
	if err := s.SetRemote(ctx, other); !errors.Is(err, ErrRefused) {
		t.Fatalf("another binding: %v, want refused", err)
	}
	if _, err := s.Append(ctx, Item{Type: User, Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	id := s.ID()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	items := filepath.Join(ws.Folder(), "sessions", id+".items.jsonl")
	before, err := os.ReadFile(items)
	if err != nil {
		t.Fatal(err)
	}
	_, err = ws.Open(ctx, id, SessionOptions{})
	var re *RemoteError
	if !errors.As(err, &re) || !errors.Is(err, ErrRefused) || re.Remote != b {
		t.Fatalf("a local open of a remote session: %v", err)
	}
	if after, _ := os.ReadFile(items); string(after) != string(before) {
		t.Fatalf("the refused open wrote to the journal:\n%s\nthen\n%s", before, after)
	}
	v, err := ws.ReadLean(ctx, id)
	if err != nil || v.Record.Remote == nil || *v.Record.Remote != b {
		t.Fatalf("record: %+v %v", v, err)
	}
	s2, err := ws.Open(ctx, id, SessionOptions{Remote: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if r := s2.Remote(); r == nil || *r != b {
		t.Fatalf("reopened binding %+v", r)
	}
	l, _, err := ws.List(ctx)
	if err != nil || len(l) != 1 || l[0].Remote != "me@devbox:/srv/proj" {
		t.Fatalf("listing %+v %v", l, err)
	}
}
