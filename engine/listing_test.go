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
