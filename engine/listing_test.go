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
	// Reading and forking it say the same, rather than showing an empty session.
	if _, err := ws.Read(ctx, ids[1]); !errors.As(err, &ue) {
		t.Fatalf("reading an unreadable session: %v", err)
	}
	if _, err := ws.Fork(ctx, ids[1], ""); !errors.As(err, &ue) {
		t.Fatalf("forking an unreadable session: %v", err)
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
	// The hint stays for the next open, which sweeps the dead owner's temp
	// files by it (temps.go), and then goes.
	hint := filepath.Join(ws.Folder(), "owners", id)
	if _, err := os.Stat(hint); err != nil {
		t.Fatalf("the dead owner's hint is gone before an open swept by it: %v", err)
	}
	o, err := ws.Open(ctx, id, SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(hint); !os.IsNotExist(err) {
		t.Fatalf("the dead owner's hint is still there after an open: %v", err)
	}
}

// A stored time in the future is not activity: a session whose journal and
// record are dated ahead of the clock never outranks real sessions (in the
// listing, or for Latest, which --continue uses), a new write dates it
// now, a record forged with a future time is rebuilt, one the listing
// cannot rebuild (its owner is live) is listed last, and fsck names each.
func TestFutureTimesDoNotOutrankRealActivity(t *testing.T) {
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
	closeIt := func(sess *Session) string {
		if err := sess.Close(); err != nil {
			t.Fatal(err)
		}
		return sess.ID()
	}
	older := closeIt(mk("older", real.Add(-2*time.Hour)))
	newer := closeIt(mk("newer", real.Add(-time.Hour)))
	ahead := closeIt(mk("from the future", time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)))
	now = real

	rep, err := s.Fsck(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var futureNotes []string
	for _, n := range rep.Notes {
		if strings.Contains(n.Problem, "future") {
			futureNotes = append(futureNotes, n.Path)
		}
	}
	if len(futureNotes) != 2 || !strings.HasSuffix(futureNotes[0], ahead+".json") && !strings.HasSuffix(futureNotes[1], ahead+".json") {
		t.Fatalf("fsck does not name the future record and its journal: %+v", rep.Notes)
	}

	order := func() []string {
		t.Helper()
		l, _, err := ws.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range l {
			out = append(out, e.ID)
		}
		return out
	}
	if got := order(); len(got) != 3 || got[0] != newer || got[1] != older || got[2] != ahead {
		t.Fatalf("order %v, want newer, older, then the future one", got)
	}
	if id, _ := ws.Latest(ctx); id != newer {
		t.Fatalf("Latest is %s, want the newest real session %s", id, newer)
	}
	if rec, _ := readRecord(s.fsys, ws.dir, ahead); rec.UpdatedAt.After(real) {
		t.Fatalf("the rebuilt record still says updated_at %v", rec.UpdatedAt)
	}

	// A new write dates it now, and it goes to the top.
	now = real.Add(time.Minute)
	re, err := ws.Open(ctx, ahead, SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := re.Append(ctx, Item{Type: User, Text: "now"}); err != nil {
		t.Fatal(err)
	}
	closeIt(re)
	if rec, _ := readRecord(s.fsys, ws.dir, ahead); !rec.UpdatedAt.Equal(now) {
		t.Fatalf("after a write the record says updated_at %v, want %v", rec.UpdatedAt, now)
	}
	if got := order(); got[0] != ahead {
		t.Fatalf("after a write: order %v", got)
	}

	// A record forged with a future time, its journal real: rebuilt.
	p := filepath.Join(ws.Folder(), "sessions", older+".json")
	b, _ := os.ReadFile(p)
	forged := strings.Replace(string(b), `"updated_at": "2026-03-01T10:00:00.000Z"`, `"updated_at": "2999-01-01T00:00:00.000Z"`, 1)
	if forged == string(b) {
		t.Fatalf("no updated_at to forge in %s", b)
	}
	os.WriteFile(p, []byte(forged), 0o600)
	if got := order(); got[0] != ahead || got[2] != older {
		t.Fatalf("with a forged record: order %v", got)
	}

	// One its live owner keeps dated ahead cannot be rebuilt: listed last.
	live := mk("live and ahead", time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC))
	defer live.Close()
	live.Close() // written durably with its future time...
	live2, err := ws.Open(ctx, live.ID(), SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer live2.Close()
	now = real.Add(2 * time.Minute)
	if rec, _ := readRecord(s.fsys, ws.dir, live.ID()); !rec.UpdatedAt.After(real) {
		t.Fatalf("the live session's record: updated_at %v (the test needs it ahead)", rec.UpdatedAt)
	}
	if got := order(); len(got) != 4 || got[3] != live.ID() {
		t.Fatalf("with a live session dated ahead: order %v", got)
	}
}

// Listing every workspace sorts their sessions together the same way: one
// dated in the future goes below every real one.
func TestSortSummariesPutsFutureLast(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	s, err := Open(filepath.Join(t.TempDir(), "home"), WithClock(func() time.Time { return now }))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sum := func(id string, at time.Time) Summary {
		var e Summary
		e.ID, e.UpdatedAt = id, at
		return e
	}
	l := []Summary{sum("a", now.Add(-time.Hour)), sum("f", now.AddDate(70, 0, 0)), sum("b", now.Add(-time.Minute)), sum("z", time.Time{})}
	s.SortSummaries(l)
	if got := l[0].ID + l[1].ID + l[2].ID + l[3].ID; got != "bazf" {
		t.Fatalf("order %s, want bazf", got)
	}
}

// A live session whose turns came faster than recordEvery has a record that
// trails its journal; RefreshRecord (the REPL calls it when it goes idle)
// brings the record up to the synced journal, so a listing in another
// process shows the last turns. It never names lines not yet synced.
func TestRefreshRecordCatchesUp(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	s, err := Open(filepath.Join(t.TempDir(), "home"), WithClock(func() time.Time { return now }))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ws, _ := s.Workspace(t.TempDir())
	sess := ws.Create(SessionOptions{Degrade: true})
	defer sess.Close()
	for _, p := range []string{"one", "two", "three"} {
		must(sess.Append(ctx, Item{Type: User, Text: p}))(t)
		if err := sess.EndTurn(ctx, Turn{}); err != nil {
			t.Fatal(err)
		}
	}
	id := sess.ID()
	if rec, err := readRecord(s.fsys, ws.dir, id); err != nil || rec.Counts.Items == 3 {
		t.Fatalf("the record before the refresh: %+v, %v (the test needs one that trails)", rec, err)
	}
	if err := sess.RefreshRecord(); err != nil {
		t.Fatal(err)
	}
	rec, err := readRecord(s.fsys, ws.dir, id)
	if err != nil || rec.Counts.Items != 3 || rec.Counts.Turns != 3 {
		t.Fatalf("the record after the refresh: %+v, %v", rec, err)
	}
	l, _, err := ws.List(ctx)
	if err != nil || len(l) != 1 || l[0].Items != 3 {
		t.Fatalf("listing after the refresh: %+v, %v", l, err)
	}
	// An item appended and not yet synced is not named by a refresh.
	must(sess.Append(ctx, Item{Type: User, Text: "four"}))(t)
	if err := sess.RefreshRecord(); err != nil {
		t.Fatal(err)
	}
	if rec, err := readRecord(s.fsys, ws.dir, id); err != nil || rec.Counts.Items != 3 {
		t.Fatalf("a refresh named an unsynced item: %+v, %v", rec, err)
	}
}
