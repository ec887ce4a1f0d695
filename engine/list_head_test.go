package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// ListHead serves the first page of the listing from the saved index
// alone: newest first, sessions dated in the future left out (List lists
// them last), owned sessions marked, and the index's count; with no index
// it declines, for the caller to List.
func TestListHead(t *testing.T) {
	ctx := context.Background()
	real := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	now := real
	s, err := Open(filepath.Join(t.TempDir(), "home"), WithClock(func() time.Time { return now }))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ws, _ := s.Workspace(t.TempDir())
	mk := func(text string, at time.Time) *Session {
		now = at
		sess := ws.Create(SessionOptions{})
		if _, err := sess.Append(ctx, Item{Type: User, Text: text}); err != nil {
			t.Fatal(err)
		}
		if err := sess.EndTurn(ctx, Turn{}); err != nil {
			t.Fatal(err)
		}
		return sess
	}
	older := mk("older", real.Add(-2*time.Hour))
	newer := mk("newer", real.Add(-time.Hour))
	busy := mk("busy", real.Add(-30*time.Minute))
	ahead := mk("from the future", time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC))
	for _, sess := range []*Session{older, newer} {
		if err := sess.Close(); err != nil {
			t.Fatal(err)
		}
	}
	defer busy.Close()
	defer ahead.Close()
	now = real

	if err := os.Remove(filepath.Join(ws.Folder(), "index.json")); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if _, _, ok := ws.ListHead(ctx, 10); ok {
		t.Fatal("ListHead answered with no index")
	}
	l, _, err := ws.List(ctx)
	if err != nil || len(l) != 4 {
		t.Fatalf("List: %d sessions, %v", len(l), err)
	}
	ids := func(l []Summary) []string {
		var out []string
		for _, e := range l {
			out = append(out, e.ID)
		}
		return out
	}
	head, total, ok := ws.ListHead(ctx, 2)
	if !ok || total != 4 || !slices.Equal(ids(head), []string{busy.ID(), newer.ID()}) {
		t.Fatalf("ListHead(2) = %v, %d, %v; want busy, newer of 4", ids(head), total, ok)
	}
	if head[0].OwnerPID != os.Getpid() || head[1].OwnerPID != 0 || head[0].Title != "busy" {
		t.Fatalf("ListHead(2) = %+v", head)
	}
	head, _, _ = ws.ListHead(ctx, 10)
	if !slices.Equal(ids(head), []string{busy.ID(), newer.ID(), older.ID()}) {
		t.Fatalf("ListHead(10) = %v; want the three dated in the past", ids(head))
	}
	if got := ids(l); got[3] != ahead.ID() {
		t.Fatalf("List = %v; the future one last", got)
	}
}
