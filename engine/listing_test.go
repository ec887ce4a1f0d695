package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// threeSessions makes three closed sessions and returns their ids, oldest first.
func threeSessions(t *testing.T, ws *Workspace) []string {
	t.Helper()
	ctx := context.Background()
	var ids []string
	for _, p := range []string{"alpha", "beta", "gamma"} {
		sess := ws.Create(SessionOptions{})
		if _, err := sess.Append(ctx, Item{Type: User, Text: p}); err != nil {
			t.Fatal(err)
		}
		if err := sess.Close(); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, sess.ID())
	}
	return ids
}

// stillFolder sets the sessions folder's time to one fixed time in the
// past, as if it had never changed: the index then trusts its cached
// listing of it.
func stillFolder(t *testing.T, ws *Workspace) {
	t.Helper()
	past := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(ws.Folder(), "sessions"), past, past); err != nil {
		t.Fatal(err)
	}
}

// A session whose record and journal another program overwrote in place
// (the folder's time unchanged) drops out of the listing at once, and
// opening it is refused, naming the journal and fsck, with nothing written.
func TestOverwrittenSessionLeftOutAndNeverAppended(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	ids := threeSessions(t, ws)
	stillFolder(t, ws)
	if l, _, err := ws.List(ctx); err != nil || len(l) != 3 {
		t.Fatalf("listing: %d sessions, %v", len(l), err)
	}
	stillFolder(t, ws)
	if l, _, _ := ws.List(ctx); len(l) != 3 { // the listing the folder vouches for
		t.Fatalf("trusted listing: %d sessions", len(l))
	}

	sess := filepath.Join(ws.Folder(), "sessions")
	journal := filepath.Join(sess, ids[1]+".items.jsonl")
	for _, f := range []string{journal, filepath.Join(sess, ids[1]+".json")} {
		if err := os.WriteFile(f, []byte("garbage{{{\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	stillFolder(t, ws)
	l, problems, err := ws.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range l {
		if e.ID == ids[1] {
			t.Fatalf("the overwritten session is still listed as %q", e.Title)
		}
	}
	if len(l) != 2 || len(problems) != 1 || !strings.Contains(problems[0].Name, ids[1]) {
		t.Fatalf("listing: %d sessions, problems %v", len(l), problems)
	}

	_, err = ws.Open(ctx, ids[1], SessionOptions{})
	var ue *UnreadableError
	if !errors.As(err, &ue) || !errors.Is(err, ErrRefused) {
		t.Fatalf("opening an unreadable session: %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, journal) || !strings.Contains(msg, "cairn storage fsck") {
		t.Fatalf("the refusal does not name the journal and fsck: %s", msg)
	}
	if b, _ := os.ReadFile(journal); string(b) != "garbage{{{\n" {
		t.Fatalf("the refused open wrote to the journal: %q", b)
	}
	// A listing does not rebuild its record from the journal either.
	os.WriteFile(filepath.Join(sess, ids[1]+".json"), nil, 0o600)
	if l, _, _ := ws.List(ctx); len(l) != 2 {
		t.Fatalf("an empty record beside an unreadable journal: %d listed", len(l))
	}
}

// A session whose process died between record writes (kill -9: the lock
// let go, the owner's hint left behind) has a record that trails its
// journal: fsck names it, and the next listing rebuilds it, so the count
// it shows is the journal's.
func TestListingRebuildsRecordOfDeadOwner(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	s, err := Open(filepath.Join(t.TempDir(), "home"), WithClock(func() time.Time { return now }))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ws, _ := s.Workspace(t.TempDir())
	sess := ws.Create(SessionOptions{})
	for _, p := range []string{"one", "two", "three"} {
		if _, err := sess.Append(ctx, Item{Type: User, Text: p}); err != nil {
			t.Fatal(err)
		}
		if err := sess.EndTurn(ctx, Turn{}); err != nil {
			t.Fatal(err)
		}
	}
	id := sess.ID()
	// The process dies: its lock goes with it, nothing else happens.
	sess.lock.Release()
	if rec, err := readRecord(s.fsys, ws.dir, id); err != nil || rec.Counts.Items == 3 {
		t.Fatalf("the record before the listing: %+v, %v (the test needs one that trails)", rec, err)
	}

	rep, err := s.Fsck(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0].Problem, "stale record") ||
		!strings.HasSuffix(rep.Notes[0].Path, id+".json") || len(rep.Problems) != 0 {
		t.Fatalf("fsck: notes %+v, problems %+v", rep.Notes, rep.Problems)
	}

	l, _, err := ws.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(l) != 1 || l[0].Items != 3 || l[0].OwnerPID != 0 {
		t.Fatalf("listing after the owner died: %+v", l)
	}
	if rep, _ := s.Fsck(ctx); len(rep.Notes) != 0 {
		t.Fatalf("fsck after the listing: %+v", rep.Notes)
	}
	if _, err := os.Stat(filepath.Join(ws.Folder(), "owners", id)); !os.IsNotExist(err) {
		t.Fatalf("the dead owner's hint is still there: %v", err)
	}
}
