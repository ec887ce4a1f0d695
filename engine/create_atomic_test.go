package engine

import (
	"context"
	"path"
	"slices"
	"strings"
	"testing"

	"cairn/internal/vfs"
)

// stateFiles lists the files under dir of the store's filesystem, relative
// to dir, sorted.
func stateFiles(t *testing.T, fsys vfs.FS, dir string) []string {
	t.Helper()
	var out []string
	var walk func(d string)
	walk = func(d string) {
		ents, err := fsys.ReadDir(d)
		if err != nil {
			if !vfs.IsNotExist(err) {
				t.Fatal(err)
			}
			return
		}
		for _, e := range ents {
			n := path.Join(d, e.Name())
			if e.IsDir() {
				walk(n)
				continue
			}
			out = append(out, strings.TrimPrefix(n, dir+"/"))
		}
	}
	walk(dir)
	slices.Sort(out)
	return out
}

// sessionIDs are the sessions a listing shows.
func sessionIDs(t *testing.T, ws *Workspace) []string {
	t.Helper()
	l, _, err := ws.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range l {
		ids = append(ids, e.ID)
	}
	slices.Sort(ids)
	return ids
}

// forkParent makes a session with a change record and a tool output its
// head path refers to, so a fork shares the one and copies the other.
func forkParent(t *testing.T, e *memEnv) string {
	t.Helper()
	ctx := context.Background()
	s := newSession(t, e.ws)
	out, err := s.PutOutput(ctx, "shell", strings.NewReader("ok\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, Item{Type: Assistant, Text: "ran it", Outputs: []string{out}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ToolWrite(ctx, "a.txt", []byte("one\n")); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return s.ID()
}

// A fork that fails at any filesystem call leaves no session behind: the
// listing and the files are as before. One that succeeds is whole.
func TestForkFailsWhole(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	parent := forkParent(t, e)
	ws := e.ws
	if _, _, err := ws.List(ctx); err != nil { // index.json saved before we count
		t.Fatal(err)
	}
	files := stateFiles(t, e.mem, ws.dir)
	before := e.faulty.Calls(vfs.OpAny)
	r, err := ws.Fork(ctx, parent, "")
	if err != nil {
		t.Fatal(err)
	}
	calls := e.faulty.Calls(vfs.OpAny) - before
	want := len(mustRead(t, ws, r.Session).Transcript())
	if want != 2 {
		t.Fatalf("the fork holds %d items, want 2", want)
	}
	if calls < 10 {
		t.Fatalf("a fork made only %d filesystem calls", calls)
	}
	// Start over from the state before the fork, failing each call in turn.
	for k := range calls {
		e2 := newMemEnv(t)
		parent := forkParent(t, e2)
		if _, _, err := e2.ws.List(ctx); err != nil {
			t.Fatal(err)
		}
		ids := sessionIDs(t, e2.ws)
		files := stateFiles(t, e2.mem, e2.ws.dir)
		e2.faulty.Inject(vfs.Rule{Skip: k, Count: 1, Err: errENOSPC})
		r, err := e2.ws.Fork(ctx, parent, "")
		e2.faulty.Reset()
		if err != nil {
			if got := stateFiles(t, e2.mem, e2.ws.dir); !sameExceptIndex(got, files) {
				t.Fatalf("call %d failed (%v): files %q, before %q", k, err, got, files)
			}
			if got := sessionIDs(t, e2.ws); !slices.Equal(got, ids) {
				t.Fatalf("call %d failed (%v): listing %q, before %q", k, err, got, ids)
			}
			continue
		}
		v := mustRead(t, e2.ws, r.Session)
		if n := len(v.Transcript()); n != want {
			t.Fatalf("call %d: the fork holds %d items, want %d", k, n, want)
		}
		if _, err := e2.ws.ReadOutput(ctx, r.Session, v.Transcript()[1].Outputs[0]); err != nil {
			t.Fatalf("call %d: the fork lacks its tool output: %v", k, err)
		}
		if l, err := e2.ws.Snapshots(ctx, r.Session); err != nil || len(l.Snapshots) != 1 {
			t.Fatalf("call %d: the fork's snapshots %v, %v", k, l, err)
		}
	}
	_ = files
}

// sameExceptIndex compares two file lists, leaving out the index cache.
func sameExceptIndex(a, b []string) bool {
	drop := func(l []string) []string {
		// The index is derived; the fork lock holds nothing and stays.
		return slices.DeleteFunc(slices.Clone(l), func(n string) bool { return n == "index.json" || n == "sessions/fork.lock" })
	}
	return slices.Equal(drop(a), drop(b))
}

func mustRead(t *testing.T, ws *Workspace, id string) *View {
	t.Helper()
	v, err := ws.Read(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// A new session's first prompt on a full disk leaves nothing: no journal,
// no lock, nothing listed. With Degrade (the REPL) it goes on unrecorded,
// and closing it leaves nothing either.
func TestCreateOnFullDiskLeavesNothing(t *testing.T) {
	ctx := context.Background()
	for _, degrade := range []bool{false, true} {
		e := newMemEnv(t)
		s0 := newSession(t, e.ws) // the workspace folder exists
		s0.Close()
		files := stateFiles(t, e.mem, path.Join(e.ws.dir, "sessions"))
		e.faulty.Inject(vfs.Rule{Op: vfs.OpWrite, Err: errENOSPC})
		var notices []string
		s := e.ws.Create(SessionOptions{Degrade: degrade, Notice: func(m string) { notices = append(notices, m) }})
		_, err := s.Append(ctx, Item{Type: User, Text: "on a full disk"})
		if degrade != (err == nil) {
			t.Fatalf("degrade %v: Append: %v", degrade, err)
		}
		if degrade && len(notices) != 1 {
			t.Fatalf("notices %q", notices)
		}
		s.Close()
		e.faulty.Reset()
		if got := stateFiles(t, e.mem, path.Join(e.ws.dir, "sessions")); !slices.Equal(got, files) {
			t.Fatalf("degrade %v: sessions folder %q, before %q", degrade, got, files)
		}
		if got := sessionIDs(t, e.ws); !slices.Equal(got, []string{s0.ID()}) {
			t.Fatalf("degrade %v: listing %q", degrade, got)
		}
		if s.Recorded() {
			t.Fatalf("degrade %v: a session that wrote nothing says it was recorded", degrade)
		}
	}
}

// Failing each call of a new session's first turn in turn: whatever is
// listed afterwards holds its first item; nothing is listed empty, and when
// nothing is listed no file is left in the sessions folder.
func TestCreateFailsWhole(t *testing.T) {
	ctx := context.Background()
	turn := func(e *memEnv) (aerr, cerr error) {
		s := e.ws.Create(SessionOptions{})
		_, aerr = s.Append(ctx, Item{Type: User, Text: "hello"})
		cerr = s.Commit(ctx)
		s.Close()
		return aerr, cerr
	}
	e := newMemEnv(t)
	before := e.faulty.Calls(vfs.OpAny)
	if aerr, cerr := turn(e); aerr != nil || cerr != nil {
		t.Fatal(aerr, cerr)
	}
	calls := e.faulty.Calls(vfs.OpAny) - before
	for k := range calls {
		e := newMemEnv(t)
		e.faulty.Inject(vfs.Rule{Skip: k, Count: 1, Err: errENOSPC})
		aerr, cerr := turn(e)
		e.faulty.Reset()
		l, _, err := e.ws.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range l {
			if x.Items < 1 {
				t.Fatalf("call %d failed (append %v, commit %v): session %s is listed with %d items", k, aerr, cerr, x.ID, x.Items)
			}
		}
		if len(l) == 0 {
			if got := stateFiles(t, e.mem, path.Join(e.ws.dir, "sessions")); len(got) > 0 {
				t.Fatalf("call %d: the first prompt failed (%v), nothing is listed, and it left %q", k, aerr, got)
			}
		}
	}
}

// A session made for something that then wrote nothing (here a tool output
// whose folder cannot be made) holds nothing: closing it removes it, so it
// is not listed and says it was not recorded.
func TestBareSessionIsDiscarded(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	e.faulty.Inject(vfs.Rule{Op: vfs.OpMkdir, Path: "workspaces/*/outputs/*", Err: errENOSPC})
	s := e.ws.Create(SessionOptions{})
	if _, err := s.PutOutput(ctx, "shell", strings.NewReader("x")); err == nil {
		t.Fatal("PutOutput worked without its folder")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	e.faulty.Reset()
	if got := sessionIDs(t, e.ws); len(got) != 0 {
		t.Fatalf("listing %q after a new session wrote nothing", got)
	}
	if got := stateFiles(t, e.mem, path.Join(e.ws.dir, "sessions")); len(got) != 0 {
		t.Fatalf("sessions folder %q", got)
	}
	if s.Recorded() {
		t.Fatal("the discarded session says it was recorded")
	}
}

// Empty sessions left by older builds: fsck names each as a problem; one
// that has no record yet is not listed.
func TestFsckNamesEmptySessions(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	real := newSession(t, e.ws)
	real.Close()
	sess := path.Join(e.ws.dir, "sessions")
	zero, lineOnly := newSessionID(), newSessionID()
	write := func(name, data string) {
		if err := vfs.WriteFileAtomic(e.mem, path.Join(sess, name), []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	// A 0-byte journal and a lock (a creation that failed on a full disk).
	write(zero+".items.jsonl", "")
	write(zero+".lock", "")
	// A journal with only its session line and an open line.
	write(lineOnly+".items.jsonl", `{"v":1,"kind":"session","session":"`+lineOnly+`","path":"/x","at":"2026-11-29T09:12:03.120Z"}`+"\n"+
		`{"v":1,"kind":"open","at":"2026-11-29T09:12:04.120Z"}`+"\n")
	if got := sessionIDs(t, e.ws); slices.Contains(got, zero) {
		t.Fatalf("a 0-byte journal is listed: %q", got)
	}
	rep, err := e.store.Fsck(ctx)
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, p := range rep.Problems {
		if strings.Contains(p.Problem, "empty session") {
			named[p.Path] = true
		}
	}
	for _, id := range []string{zero, lineOnly} {
		if !named[itemsName(e.ws.dir, id)] {
			t.Errorf("fsck does not name the empty session %s: %+v", id, rep.Problems)
		}
	}
	if named[itemsName(e.ws.dir, real.ID())] || len(named) != 2 {
		t.Errorf("fsck names %v", named)
	}
}

// The next open collects the temp files of a creation that was stopped
// before its items journal got its name (and the lock file it left), but
// not those of a creation under way, whose lock is held.
func TestOpenCollectsUnmadeSessions(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	s := newSession(t, e.ws)
	id := s.ID()
	s.Close()
	sess := path.Join(e.ws.dir, "sessions")
	dead, live := newSessionID(), newSessionID()
	// Temp names as a creation makes them (vfs.TempName, registered as in
	// use by this process, so only the unmade-session rule can take them).
	deadItems := vfs.TempName(sess, dead+".items.jsonl")
	deadChanges := vfs.TempName(sess, dead+".changes.jsonl")
	liveItems := vfs.TempName(sess, live+".items.jsonl")
	defer vfs.ReleaseTemp(deadItems)
	defer vfs.ReleaseTemp(deadChanges)
	defer vfs.ReleaseTemp(liveItems)
	for _, n := range []string{deadItems, deadChanges, path.Join(sess, dead+".lock"), liveItems} {
		if err := vfs.WriteFileAtomic(e.mem, n, []byte("{}\n")); err != nil {
			t.Fatal(err)
		}
	}
	l, err := e.ws.acquire(live)
	if err != nil {
		t.Fatal(err)
	}
	defer e.ws.release(live, l)
	o, err := e.ws.Open(ctx, id, SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	o.Close()
	got := stateFiles(t, e.mem, sess)
	want := []string{path.Base(liveItems), id + ".items.jsonl", id + ".json", id + ".lock", live + ".lock"}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("sessions folder after the next open:\n got %q\nwant %q", got, want)
	}
}

// A creation killed after it took its lock and before its first temp file
// leaves only the lock file and its owner hint: the next open collects
// both, and leaves the lone lock of a creation under way alone.
func TestOpenCollectsUnmadeSessionOfDeadProcess(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	s := newSession(t, e.ws)
	id := s.ID()
	s.Close()
	dead, live := newSessionID(), newSessionID()
	l, err := e.ws.acquire(dead) // writes the lock file and the hint
	if err != nil {
		t.Fatal(err)
	}
	l.Release() // its process died
	ll, err := e.ws.acquire(live)
	if err != nil {
		t.Fatal(err)
	}
	defer e.ws.release(live, ll)
	o, err := e.ws.Open(ctx, id, SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	o.Close()
	got := stateFiles(t, e.mem, path.Join(e.ws.dir, "sessions"))
	want := []string{id + ".items.jsonl", id + ".json", id + ".lock", live + ".lock"}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("sessions folder after the next open:\n got %q\nwant %q", got, want)
	}
	if _, err := e.mem.Lstat(ownersName(e.ws.dir, dead)); !vfs.IsNotExist(err) {
		t.Fatalf("the dead creation's owner hint is still there: %v", err)
	}
}
