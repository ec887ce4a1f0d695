package engine

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"cairn/internal/vfs"
)

// deadPID is above the largest pid Linux hands out (PID_MAX_LIMIT, 2^22):
// no process has it.
const deadPID = 999999999

// deadTemp is the name of a temp file in dir for base, as a process that
// is gone would have left it.
func deadTemp(dir, base string) string {
	return tempOf(dir, base, deadPID)
}

var tempSeq int

// tempOf is a temp name in dir for base carrying pid.
func tempOf(dir, base string, pid int) string {
	tempSeq++
	return path.Join(dir, "."+base+"."+strconv.Itoa(pid)+"-"+strings.Repeat("0", 8)+strconv.FormatInt(int64(0x10000000+tempSeq), 16)+vfs.TempSuffix)
}

// lookalikes are files people name much like temp files: a sweep must never
// take them.
func lookalikes(base string) []string {
	return []string{"." + base + ".tmpl", "." + base + ".tmp", "." + base + ".tmp123", "." + base + ".tmpabc",
		"." + base + ".tmp-" + strconv.Itoa(deadPID) + "-1bil2dna3mar", "." + base + ".swp", base + "~",
		"." + base + "." + strconv.Itoa(deadPID) + "-0123" + vfs.TempSuffix}
}

type wsFiles struct {
	t   *testing.T
	dir string
}

func (w wsFiles) put(name, content string, age time.Duration) {
	w.t.Helper()
	p := filepath.Join(w.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
	old := time.Now().Add(-age)
	if err := os.Chtimes(p, old, old); err != nil {
		w.t.Fatal(err)
	}
}

func (w wsFiles) has(name string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(w.dir, filepath.FromSlash(name)))
	return string(b), err == nil
}

// TestSweepKeepsUserFiles: the files a person keeps beside a file a tool
// writes, however much their names look like temp files and however old,
// are still there with their bytes after the change and any number of
// opens; cairn's own leftovers beside it are gone.
func TestSweepKeepsUserFiles(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	ws := wsFiles{t, e.ws.path}
	ws.put("config", "v1", 0)
	user := lookalikes("config")
	for _, n := range user {
		ws.put(n, "mine: "+n, 2*time.Hour)
	}
	s := e.ws.Create(SessionOptions{})
	must(s.ToolWrite(ctx, "config", []byte("v2")))(t)
	id := s.ID()
	s.Close()
	left := deadTemp(".", "config")
	ws.put(left, "staged by a killed write", 2*time.Hour)
	for range 2 {
		e.advance(2 * time.Hour)
		s = must(e.ws.Open(ctx, id, SessionOptions{}))(t)
		must(s.Undo(ctx))(t)
		must(s.Redo(ctx))(t)
		s.Close()
	}
	for _, n := range user {
		if got, ok := ws.has(n); !ok || got != "mine: "+n {
			t.Errorf("the user's %s: %q %v", n, got, ok)
		}
	}
	if _, ok := ws.has(left); ok {
		t.Errorf("cairn's leftover %s is still there", left)
	}
	if got, _ := ws.has("config"); got != "v2" {
		t.Errorf("config holds %q", got)
	}
}

// TestSweepDeadOwnersTemps: the temp files killed writes left in every
// folder a session's changes named, not only its newest change's, are
// collected at the next open of any session of the workspace; a live
// writer's temps, of this process or another, and the user's files stay.
func TestSweepDeadOwnersTemps(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	ws := wsFiles{t, e.ws.path}
	dead := e.ws.Create(SessionOptions{})
	for _, f := range []string{"a/one.txt", "b/two.txt", "c/d/three.txt"} {
		must(dead.ToolWrite(ctx, f, []byte(f)))(t)
	}
	deadID := dead.ID()
	dead.Close()
	// Its owner "dies": the hint stays, the lock is free, and its writes
	// left temps.
	if err := vfs.WriteFileAtomic(e.mem, ownersName(e.ws.dir, deadID), []byte(strconv.Itoa(deadPID)+"\n")); err != nil {
		t.Fatal(err)
	}
	var leftovers, kept []string
	for _, f := range []string{"a/one.txt", "b/two.txt", "c/d/three.txt"} {
		dir, base := path.Split(f)
		leftovers = append(leftovers, deadTemp(dir, base), deadTemp(dir, base))
		kept = append(kept, tempOf(dir, base, os.Getppid())) // a live process's write
		for _, n := range lookalikes(base) {
			kept = append(kept, path.Join(dir, n))
		}
	}
	inFlight := vfs.TempName("a", "one.txt") // this process's, in progress
	kept = append(kept, inFlight)
	for _, n := range append(append([]string{}, leftovers...), kept...) {
		ws.put(n, "bytes of "+n, time.Hour)
	}

	gone := newSessionID() // a hint left for a session since deleted
	if err := vfs.WriteFileAtomic(e.mem, ownersName(e.ws.dir, gone), []byte("1\n")); err != nil {
		t.Fatal(err)
	}
	other := e.ws.Create(SessionOptions{})
	must(other.Append(ctx, Item{Type: User, Text: "hello"}))(t)
	if err := other.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	otherID := other.ID()
	other.Close()
	s := must(e.ws.Open(ctx, otherID, SessionOptions{}))(t)
	for _, n := range leftovers {
		if _, ok := ws.has(n); ok {
			t.Errorf("leftover %s not collected", n)
		}
	}
	for _, n := range kept {
		if got, ok := ws.has(n); !ok || got != "bytes of "+n {
			t.Errorf("%s: %q %v, want it kept", n, got, ok)
		}
	}
	for _, id := range []string{deadID, gone} {
		if _, left := e.ws.readHint(id); left {
			t.Errorf("the hint of %s is still there", id)
		}
		if _, err := e.mem.Stat(lockName(e.ws.dir, gone)); !vfs.IsNotExist(err) {
			t.Errorf("a lock file was made for the deleted session: %v", err)
		}
	}
	s.Close()
	// Once its writer lets go of it, this process's temp goes too, at the
	// next sweep of its folder (another owner's death here).
	vfs.ReleaseTemp(inFlight)
	if err := vfs.WriteFileAtomic(e.mem, ownersName(e.ws.dir, deadID), nil); err != nil {
		t.Fatal(err)
	}
	s = must(e.ws.Open(ctx, otherID, SessionOptions{}))(t)
	s.Close()
	if _, ok := ws.has(inFlight); ok {
		t.Error("a released temp of this process was not collected")
	}
}

// TestSweepOwnSessionAfterDeath: a session whose owner died collects, at
// its own next open, the temps in every folder its changes named.
func TestSweepOwnSessionAfterDeath(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	ws := wsFiles{t, e.ws.path}
	s := e.ws.Create(SessionOptions{})
	must(s.ToolWrite(ctx, "x/old.txt", []byte("1")))(t)
	must(s.ToolWrite(ctx, "y/new.txt", []byte("2")))(t)
	id := s.ID()
	s.Close()
	left := deadTemp("x", "old.txt")
	ws.put(left, "a killed write's", 0)
	// A clean close: the hint is gone, and only the newest change's
	// folder is looked at.
	s = must(e.ws.Open(ctx, id, SessionOptions{}))(t)
	s.Close()
	if _, ok := ws.has(left); !ok {
		t.Fatal("a temp outside the newest change's folders went without a dead owner")
	}
	if err := vfs.WriteFileAtomic(e.mem, ownersName(e.ws.dir, id), nil); err != nil {
		t.Fatal(err)
	}
	s = must(e.ws.Open(ctx, id, SessionOptions{}))(t)
	defer s.Close()
	if _, ok := ws.has(left); ok {
		t.Error("the dead owner's leftover in an older change's folder was not collected")
	}
}

// TestToolWriteLongName: a file name of up to 255 bytes (NAME_MAX) can be
// written, undone and redone: its temp name fits too.
func TestToolWriteLongName(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	ws := wsFiles{t, e.ws.path}
	for _, n := range []int{240, 250, 255} {
		name := strings.Repeat("n", n-4) + ".txt"
		ws.put(name, "old", 0)
		s := e.ws.Create(SessionOptions{})
		if _, err := s.ToolWrite(ctx, name, []byte("new")); err != nil {
			t.Fatalf("write a %d-byte name: %v", n, err)
		}
		must(s.Undo(ctx))(t)
		if got, _ := ws.has(name); got != "old" {
			t.Fatalf("undo of a %d-byte name: %q", n, got)
		}
		must(s.Redo(ctx))(t)
		if got, _ := ws.has(name); got != "new" {
			t.Fatalf("redo of a %d-byte name: %q", n, got)
		}
		s.Close()
	}
}

// TestFsckNotesOldTemps: a dot file in the state folder that is not a temp
// name (an earlier version's temp file) is noted and left, not a problem;
// a temp name is noted as one.
func TestFsckNotesOldTemps(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	s := newSession(t, e.ws)
	sess := path.Join(e.ws.dir, "sessions")
	old := path.Join(sess, "."+s.ID()+".json.tmp1bil2dna")
	tmp := deadTemp(sess, s.ID()+".json")
	for _, n := range []string{old, tmp} {
		if err := vfs.WriteFileAtomic(e.mem, n, []byte("{")); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := e.store.Fsck(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 0 {
		t.Fatalf("problems: %+v", rep.Problems)
	}
	notes := map[string]string{}
	for _, n := range rep.Notes {
		notes[n.Path] = n.Problem
	}
	if !strings.Contains(notes[old], "left in place") || !strings.Contains(notes[tmp], "temp file") {
		t.Fatalf("notes: %+v", rep.Notes)
	}
	if _, err := e.mem.Stat(old); err != nil {
		t.Fatalf("fsck or an open removed %s: %v", old, err)
	}
}

// TestSweepHintedFolders: a tool write killed before its change line was
// written leaves its temp in a folder no change line names; the owner's
// hint named it first, so the next open collects it.
func TestSweepHintedFolders(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	ws := wsFiles{t, e.ws.path}
	s := e.ws.Create(SessionOptions{})
	must(s.ToolWrite(ctx, "a/x.txt", []byte("x")))(t)
	must(s.ToolWrite(ctx, "new/y.txt", []byte("y")))(t)
	hint, ok := e.ws.readHint(s.ID())
	if !ok || !hint["a"] || !hint["new"] {
		t.Fatalf("the owner's hint names %v (there: %v), want a and new", hint, ok)
	}
	b, err := vfs.ReadFile(e.mem, ownersName(e.ws.dir, s.ID()))
	if err != nil {
		t.Fatal(err)
	}
	id := s.ID()
	s.Close()
	// The owner died writing z/w.txt: its hint names z, no change line does.
	b = append(b, `"z"`+"\n"...)
	if err := vfs.WriteFileAtomic(e.mem, ownersName(e.ws.dir, id), b); err != nil {
		t.Fatal(err)
	}
	left := deadTemp("z", "w.txt")
	ws.put(left, "staged, never renamed", 0)
	ws.put("z/.w.txt.tmpl", "mine", 0)
	other := e.ws.Create(SessionOptions{})
	must(other.Append(ctx, Item{Type: User, Text: "hello"}))(t)
	otherID := other.ID()
	other.Close()
	o := must(e.ws.Open(ctx, otherID, SessionOptions{}))(t)
	defer o.Close()
	if _, ok := ws.has(left); ok {
		t.Error("the temp in the folder the hint named was not collected")
	}
	if got, _ := ws.has("z/.w.txt.tmpl"); got != "mine" {
		t.Errorf("the user's z/.w.txt.tmpl: %q", got)
	}
}

// TestSweepAtNewSession: starting a new session in the workspace (the REPL
// run afresh, prompt --new) collects the temps a killed owner's writes
// left, as opening a stored one does.
func TestSweepAtNewSession(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	ws := wsFiles{t, e.ws.path}
	dead := e.ws.Create(SessionOptions{})
	must(dead.ToolWrite(ctx, "sub/five.bin", []byte("v1")))(t)
	deadID := dead.ID()
	dead.Close()
	if err := vfs.WriteFileAtomic(e.mem, ownersName(e.ws.dir, deadID), []byte(strconv.Itoa(deadPID)+"\n\"sub\"\n")); err != nil {
		t.Fatal(err)
	}
	left := deadTemp("sub", "five.bin")
	ws.put(left, "staged by a killed write", 0)
	mine := "sub/.five.bin.tmpl"
	ws.put(mine, "the user's", 0)

	s := e.ws.Create(SessionOptions{})
	must(s.Append(ctx, Item{Type: User, Text: "a new session"}))(t)
	defer s.Close()
	if _, ok := ws.has(left); ok {
		t.Errorf("the killed write's %s is still there after a new session started", left)
	}
	if got, ok := ws.has(mine); !ok || got != "the user's" {
		t.Errorf("the user's %s: %q %v", mine, got, ok)
	}
	if _, there := e.ws.readHint(deadID); there {
		t.Error("the dead owner's hint is still there")
	}
}

// TestSweepAtEveryRead: a read that owns no session (show and transcript,
// trail, snapshots, shells, a listing) collects the temps a killed owner's
// file tools left in the folders its hint names, and its outputs folder's;
// a temp of a live process, and the user's look-alikes, stay; the hint
// stays for the next owner.
func TestSweepAtEveryRead(t *testing.T) {
	ctx := context.Background()
	for _, read := range []struct {
		name string
		run  func(w *Workspace, id string) error
	}{
		{"read", func(w *Workspace, id string) error { _, err := w.Read(ctx, id); return err }},
		{"trail", func(w *Workspace, id string) error {
			_, err := w.Trail(ctx, id, func([]byte) error { return nil })
			return err
		}},
		{"snapshots", func(w *Workspace, id string) error { _, err := w.Snapshots(ctx, id); return err }},
		{"shells", func(w *Workspace, id string) error { _, err := w.ShellHistory(ctx, id); return err }},
		{"list", func(w *Workspace, _ string) error { _, _, err := w.List(ctx); return err }},
	} {
		t.Run(read.name, func(t *testing.T) {
			e := newMemEnv(t)
			ws := wsFiles{t, e.ws.path}
			dead := e.ws.Create(SessionOptions{})
			must(dead.ToolWrite(ctx, "src/a.go", []byte("v1")))(t)
			id := dead.ID()
			dead.Close()
			hint := []byte(strconv.Itoa(deadPID) + "\n\"src\"\n")
			noErr(t, vfs.WriteFileAtomic(e.mem, ownersName(e.ws.dir, id), hint))
			left := []string{deadTemp("src", "a.go"), deadTemp("src", "b.go")}
			for _, l := range left {
				ws.put(l, "staged by a killed patch", 0)
			}
			live := tempOf("src", "c.go", 1) // init's: a live process
			ws.put(live, "a live writer's", 0)
			ws.put("src/.a.go.tmpl", "mine", 0)
			out := deadTemp(outputDir(e.ws.dir, id), "o.zst")
			noErr(t, e.mem.MkdirAll(path.Dir(out), vfs.DirPerm))
			noErr(t, vfs.WriteFileAtomic(e.mem, out, []byte("x")))

			noErr(t, read.run(e.ws, id))
			for _, l := range left {
				if _, ok := ws.has(l); ok {
					t.Errorf("%s: the killed write's %s is still there", read.name, l)
				}
			}
			if _, err := e.mem.Lstat(out); !vfs.IsNotExist(err) {
				t.Errorf("%s: the outputs temp %s: %v", read.name, out, err)
			}
			if got, _ := ws.has("src/.a.go.tmpl"); got != "mine" {
				t.Errorf("%s: the user's file: %q", read.name, got)
			}
			if got, _ := ws.has(live); got != "a live writer's" {
				t.Errorf("%s: the live writer's temp: %q", read.name, got)
			}
			if got, _ := vfs.ReadFile(e.mem, ownersName(e.ws.dir, id)); string(got) != string(hint) {
				t.Errorf("%s: the hint changed: %q", read.name, got)
			}
		})
	}
}
