package engine

// The session lifecycle cases (create, open, append, commit, close,
// records) with the testStore helper the other session tests share; long
// because each step of the lifecycle is a case.

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cairn/engine/internal/titles"
	"cairn/internal/vfs"
)

// testStore opens a store in a temp folder and a workspace in another
// (newSnapEnv's, over openStore).
func testStore(t *testing.T) (*Store, *Workspace) {
	t.Helper()
	e := newSnapEnv(t, "")
	return e.store, e.ws
}

func TestCreateWritesNothingUntilAnItem(t *testing.T) {
	s, ws := testStore(t)
	sess := ws.Create(SessionOptions{})
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	if sess.Recorded() {
		t.Fatal("an empty session says it was recorded")
	}
	if _, err := os.Stat(filepath.Join(s.Home(), "workspaces")); !os.IsNotExist(err) {
		t.Fatalf("an empty session created the workspace folder: %v", err)
	}
}

func TestAppendEndTurnAndResume(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	sess := ws.Create(SessionOptions{})
	u, err := sess.Append(ctx, Item{Type: User, Text: "fix the parser\nplease"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := sess.Append(ctx, Item{Type: Assistant, Text: "done"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Parent != u.ID {
		t.Fatalf("assistant parent %q, want %q", a.Parent, u.ID)
	}
	trust := &Trust{Map: map[string]string{"src/": "trusted"}, Rules: []TrustRule{{Path: "gen/x.go", Rule: "no-read"}}}
	err = sess.EndTurn(ctx, Turn{Plan: []byte(`{"steps":["a"]}`), Model: "m1", Spend: Spend{InputTokens: 10, OutputTokens: 5, CostUSD: 0.01},
		Trust: trust, AllowedCommands: []string{"go test"}, Branch: "main", Labels: []string{"prompt"}, Gates: []string{"planner"}})
	if err != nil {
		t.Fatal(err)
	}
	id := sess.ID()
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}

	re, err := ws.Open(ctx, id, SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer re.Close()
	tr := re.Transcript()
	if len(tr) != 2 || tr[0].Text != "fix the parser\nplease" || tr[1].Text != "done" {
		t.Fatalf("transcript after resume: %+v", tr)
	}
	r := re.Record()
	if r.Title != "fix the parser" || r.TitleSource != "prompt" {
		t.Fatalf("title %q (%s)", r.Title, r.TitleSource)
	}
	if string(r.Plan) != `{"steps":["a"]}` || r.Spend.InputTokens != 10 || r.Model != "m1" {
		t.Fatalf("plan/spend/model not restored: %s %+v %s", r.Plan, r.Spend, r.Model)
	}
	if r.Trust == nil || r.Trust.Map["src/"] != "trusted" || len(r.Trust.Rules) != 1 || r.Trust.Rules[0].Rule != "no-read" {
		t.Fatalf("trust not restored: %+v", r.Trust)
	}
	if len(r.AllowedCommands) != 1 || r.AllowedCommands[0] != "go test" {
		t.Fatalf("allowed commands not restored: %v", r.AllowedCommands)
	}
	if re.Resume().AskTrust {
		t.Fatal("a session with a trust map asks the trust question again")
	}
	if re.Resume().BranchBefore != "main" {
		t.Fatalf("branch before = %q", re.Resume().BranchBefore)
	}
}

func TestSecondOwnerIsBusy(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	sess := ws.Create(SessionOptions{})
	if _, err := sess.Append(ctx, Item{Type: User, Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	if err := sess.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	_, err := ws.Open(ctx, sess.ID(), SessionOptions{})
	var busy *BusyError
	if !errors.As(err, &busy) || !errors.Is(err, ErrBusy) || busy.PID != os.Getpid() {
		t.Fatalf("second open: %v", err)
	}
	if !strings.Contains(err.Error(), "pid") {
		t.Fatalf("busy error does not name the pid: %v", err)
	}
	sess.Close()
	again, err := ws.Open(ctx, sess.ID(), SessionOptions{})
	if err != nil {
		t.Fatalf("open after the owner closed: %v", err)
	}
	again.Close()
}

// TestOpenWaitsOutAListingProbe: a listing (or the picker's preview) tests
// a session's lock by taking it for a moment, with no pid in it. An Open at
// that moment waits for it instead of refusing the session as open in
// another process.
func TestOpenWaitsOutAListingProbe(t *testing.T) {
	ctx := context.Background()
	s, ws := testStore(t)
	sess := ws.Create(SessionOptions{})
	must(sess.Append(ctx, Item{Type: User, Text: "hi"}))(t)
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}

	probe, err := s.fsys.Lock(lockName(ws.dir, sess.ID()))
	if err != nil {
		t.Fatal(err)
	}
	released := make(chan struct{})
	go func() {
		time.Sleep(300 * time.Millisecond)
		close(released)
		probe.Release()
	}()
	again, err := ws.Open(ctx, sess.ID(), SessionOptions{})
	if err != nil {
		t.Fatalf("open during a probe: %v", err)
	}
	select {
	case <-released:
	default:
		t.Fatal("opened while the probe still held the lock")
	}
	again.Close()
}

func TestTornLastLineResumesAndRepairs(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	sess := ws.Create(SessionOptions{})
	for _, p := range []string{"one", "two", "three"} {
		if _, err := sess.Append(ctx, Item{Type: User, Text: p}); err != nil {
			t.Fatal(err)
		}
	}
	sess.Close()
	name := filepath.Join(ws.Folder(), "sessions", sess.ID()+".items.jsonl")
	f, err := os.OpenFile(name, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"v":1,"kind":"item","id":"i-torn","type":"user","text":"half`)
	f.Close()

	re, err := ws.Open(ctx, sess.ID(), SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tr := re.Transcript()
	if len(tr) != 3 || tr[2].Text != "three" {
		t.Fatalf("after a torn tail: %+v", tr)
	}
	if re.Resume().Repaired == 0 {
		t.Fatal("the torn tail was not reported as repaired")
	}
	if _, err := re.Append(ctx, Item{Type: User, Text: "four"}); err != nil {
		t.Fatal(err)
	}
	re.Close()
	b, _ := os.ReadFile(name)
	if strings.Contains(string(b), "half") || !strings.Contains(string(b), `"kind":"repair"`) {
		t.Fatalf("journal after repair:\n%s", b)
	}
	re2, err := ws.Open(ctx, sess.ID(), SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer re2.Close()
	if n := len(re2.Transcript()); n != 4 {
		t.Fatalf("%d items after the repaired append, want 4", n)
	}
}

// A record that does not parse is rebuilt by the next listing.
func TestGarbageRecordIsRebuiltAndNeighboursListed(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
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
	os.WriteFile(filepath.Join(ws.Folder(), "sessions", ids[1]+".json"), []byte("{garbage"), 0o600)
	// The record is derived: the listing rebuilds it from the journal, and
	// the session is listed with its neighbours, found by its title too.
	l, problems, err := ws.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(l) != 3 || len(problems) != 0 {
		t.Fatalf("listing with a garbage record: %d entries, %d problems", len(l), len(problems))
	}
	if id, err := ws.Resolve(ctx, "beta"); err != nil || id != ids[1] {
		t.Fatalf("lookup by title: %q %v", id, err)
	}
}

func TestListNewestFirstByRecordTime(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s, err := Open(t.TempDir(), WithClock(func() time.Time { return now }))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ws, _ := s.Workspace(t.TempDir())
	var ids []string
	for i, p := range []string{"old", "new", "middle"} {
		now = time.Date(2026, 1, 1+[]int{0, 2, 1}[i], 0, 0, 0, 0, time.UTC)
		sess := ws.Create(SessionOptions{})
		sess.Append(ctx, Item{Type: User, Text: p})
		sess.Close()
		ids = append(ids, sess.ID())
	}
	now = time.Date(2026, 1, 4, 0, 0, 0, 0, time.UTC) // list after all three: none in the future
	l, _, _ := ws.List(ctx)
	if len(l) != 3 || l[0].ID != ids[1] || l[1].ID != ids[2] || l[2].ID != ids[0] {
		t.Fatalf("order: %v %v %v", l[0].Title, l[1].Title, l[2].Title)
	}
}

func TestAuditHoldsNoContent(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	sess := ws.Create(SessionOptions{})
	secret := "SECRET-prompt-text-4711"
	sess.Append(ctx, Item{Type: User, Text: secret})
	sess.Append(ctx, Item{Type: ToolResult, Text: "tool output " + secret})
	sess.Append(ctx, Item{Type: ToolResult, Quarantined: true, Slot: "web-1", Text: "QUARANTINED-" + secret})
	if err := sess.EndTurn(ctx, Turn{Labels: []string{"prompt", "tool:edit"}, Gates: []string{"planner"}}); err != nil {
		t.Fatal(err)
	}
	if err := sess.EndTurn(ctx, Turn{Labels: []string{secret + " with spaces"}}); !errors.Is(err, ErrBadInput) {
		t.Fatalf("content as a label: %v", err)
	}
	sess.Close()
	trail, _ := os.ReadFile(filepath.Join(ws.Folder(), "sessions", sess.ID()+".audit.jsonl"))
	if len(trail) == 0 || strings.Contains(string(trail), "SECRET") {
		t.Fatalf("trail:\n%s", trail)
	}
	if !strings.Contains(string(trail), `"gates":["planner"]`) {
		t.Fatalf("trail lacks the gate names:\n%s", trail)
	}
	err := filepath.Walk(ws.Store().Home(), func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, _ := os.ReadFile(p)
		if strings.Contains(string(b), "QUARANTINED") {
			t.Errorf("quarantined content written to %s", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestRenameAndTitles(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	sess := ws.Create(SessionOptions{})
	defer sess.Close()
	sess.Append(ctx, Item{Type: User, Text: "   "})
	if got := sess.Record().Title; got != "(empty prompt)" {
		t.Fatalf("empty prompt title %q", got)
	}
	if err := sess.Rename(ctx, "  "); !errors.Is(err, ErrBadInput) {
		t.Fatalf("empty rename: %v", err)
	}
	if err := sess.Rename(ctx, "dependency audit"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := sess.SetGeneratedTitle(ctx, "generated"); ok || sess.Record().Title != "dependency audit" {
		t.Fatalf("a generated title replaced the user's: %q", sess.Record().Title)
	}
	// The rename is on disk at once.
	rec, err := readRecord(ws.Store().FS(), ws.dir, sess.ID())
	if err != nil || rec.Title != "dependency audit" || rec.TitleSource != "user" {
		t.Fatalf("record after rename: %+v %v", rec, err)
	}
}

func TestTitleFromPrompt(t *testing.T) {
	long := strings.Repeat("word ", 30)
	cases := []struct{ in, want string }{
		{"hello world", "hello world"},
		{"\n\n  first line  \nsecond", "first line"},
		{"", "(empty prompt)"},
		{" \t\n ", "(empty prompt)"},
		{long, strings.TrimSpace(strings.Repeat("word ", 20))},
		{strings.Repeat("x", 150), strings.Repeat("x", 100)},
		{strings.Repeat("é", 99) + " tail", strings.Repeat("é", 99)},
	}
	for _, c := range cases {
		got := titles.FromPrompt(c.in)
		if got != c.want {
			t.Errorf("titles.FromPrompt(%q) = %q, want %q", c.in, got, c.want)
		}
		if n := len([]rune(got)); n > 100 {
			t.Errorf("title of %d characters", n)
		}
	}
}

func TestDegradeOnFullDisk(t *testing.T) {
	ctx := context.Background()
	mem := vfs.NewMem()
	faulty := vfs.NewFaulty(mem)
	s, err := OpenFS(faulty, "/mem")
	if err != nil {
		t.Fatal(err)
	}
	ws, err := s.Workspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var notices []string
	sess := ws.Create(SessionOptions{Degrade: true, Notice: func(m string) { notices = append(notices, m) }})
	if _, err := sess.Append(ctx, Item{Type: User, Text: "one"}); err != nil {
		t.Fatal(err)
	}
	faulty.Inject(vfs.Rule{Op: vfs.OpWrite, Err: errENOSPC})
	for _, p := range []string{"two", "three"} {
		if _, err := sess.Append(ctx, Item{Type: User, Text: p}); err != nil {
			t.Fatalf("a full disk stopped the session: %v", err)
		}
		if err := sess.EndTurn(ctx, Turn{}); err != nil {
			t.Fatalf("a full disk stopped the turn: %v", err)
		}
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "unrecorded") {
		t.Fatalf("notices: %q", notices)
	}
	if sess.Unrecorded() == nil || len(sess.Transcript()) != 3 {
		t.Fatalf("the session did not go on in memory: %v %d", sess.Unrecorded(), len(sess.Transcript()))
	}
	sess.Close()
	faulty.Reset()
	// Once the fault is gone, a new session works again and the first prompt
	// of the old one is still there.
	re, err := ws.Open(ctx, sess.ID(), SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer re.Close()
	if tr := re.Transcript(); len(tr) < 1 || tr[0].Text != "one" {
		t.Fatalf("after the fault: %+v", tr)
	}
}

// A record left empty by a crash (records are replaced without a sync
// between turns) is rebuilt from the journal by the next listing, unlike a
// damaged one.
func TestEmptyRecordRebuiltByListing(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	sess := ws.Create(SessionOptions{})
	sess.Append(ctx, Item{Type: User, Text: "kept"})
	sess.Close()
	name := filepath.Join(ws.Folder(), "sessions", sess.ID()+".json")
	os.WriteFile(name, nil, 0o600)
	l, problems, err := ws.List(ctx)
	if err != nil || len(l) != 1 || len(problems) != 0 || l[0].Title != "kept" {
		t.Fatalf("listing after an empty record: %v %d entries %d problems", err, len(l), len(problems))
	}
	if b, _ := os.ReadFile(name); len(b) == 0 {
		t.Fatal("the empty record was not rebuilt")
	}
}

// A state folder of a newer format is refused, naming the format and the
// build; an unreadable FORMAT file too; nothing is written either way.
func TestNewerFormatRefused(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	s, err := Open(home)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if fi, _ := os.Stat(home); fi.Mode().Perm() != 0o700 {
		t.Fatalf("state folder is %o", fi.Mode().Perm())
	}
	os.WriteFile(filepath.Join(home, "FORMAT"), []byte(`{"v":1,"format":2}`), 0o600)
	_, err = Open(home)
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "format 2") || !strings.Contains(err.Error(), Version) {
		t.Fatalf("newer format: %v", err)
	}
	os.WriteFile(filepath.Join(home, "FORMAT"), []byte(`garbage`), 0o600)
	if _, err := Open(home); !errors.Is(err, ErrFormat) {
		t.Fatalf("unreadable FORMAT: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(home, "FORMAT")); string(b) != "garbage" {
		t.Fatal("a refused FORMAT file was rewritten")
	}
}
