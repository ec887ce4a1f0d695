package engine

// The line-first file tools' durability cases with the crashEnv helper
// they share; long because each rule of the change-line order is a case.

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/engine/internal/fstate"
	"cairn/internal/vfs"
	"cairn/journal"
)

// The file tools record line first (tools.go): these tests cover what that
// adds to the format and the durability rules — inline pre-images, abort
// lines, the settling of a change a crash left unmade, and the folder syncs
// the next change line and the end of the turn wait for.

// crashEnv is a store and a workspace on one vfs.Mem, so a crash drops both.
type crashEnv struct {
	t   *testing.T
	ctx context.Context
	mem *vfs.Mem
	st  *Store
	ws  *Workspace
	dir string
}

func newCrashEnv(t *testing.T) *crashEnv {
	e := &crashEnv{t: t, ctx: context.Background(), mem: vfs.NewMem(), dir: t.TempDir()}
	e.open()
	return e
}

func (e *crashEnv) open() {
	e.t.Helper()
	e.st = openStore(e.t, storeSpec{mem: e.mem, wsOnState: true, closedByCaller: true}).Store
	e.ws = must(e.st.Workspace(e.dir))(e.t)
}

// crash drops whatever was not synced and opens the store again.
func (e *crashEnv) crash(s *Session) {
	e.mem.Crash()
	s.Close()
	e.st.Close()
	e.open()
}

func (e *crashEnv) file(name string) string {
	e.t.Helper()
	b, err := vfs.ReadFile(e.mem, name)
	if err != nil {
		e.t.Fatalf("%s: %v", name, err)
	}
	return string(b)
}

// putDurable writes files (path to content) and syncs their folders and
// the root (putDurably).
func (e *crashEnv) putDurable(files map[string]string) {
	e.t.Helper()
	m := map[string][]byte{}
	for p, c := range files {
		m[p] = []byte(c)
	}
	putDurably(e.t, e.mem, m)
}

func (e *crashEnv) put(name, content string) {
	e.t.Helper()
	if err := vfs.WriteFileAtomic(e.mem, name, []byte(content)); err != nil {
		e.t.Fatal(err)
	}
}

// TestToolWritesDurableWithTheTurn: a tool's rename is made durable by the
// end of its turn (EndTurn, Commit, Close), not by the tool: a crash before
// loses the write and the change with it, never one without the other. No
// temp file is left beside the file.
func TestToolWritesDurableWithTheTurn(t *testing.T) {
	for _, end := range []string{"none", "EndTurn", "Commit", "Close"} {
		t.Run(end, func(t *testing.T) {
			e := newCrashEnv(t)
			e.put("a.txt", "old")
			s := e.ws.Create(SessionOptions{})
			must(s.Append(e.ctx, Item{Type: User, Text: "edit a.txt"}))(t)
			must(s.ToolWrite(e.ctx, "a.txt", []byte("new")))(t)
			switch end {
			case "EndTurn":
				if err := s.EndTurn(e.ctx, Turn{}); err != nil {
					t.Fatal(err)
				}
			case "Commit":
				if err := s.Commit(e.ctx); err != nil {
					t.Fatal(err)
				}
			case "Close":
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
			}
			id := s.ID()
			e.crash(s)
			got := e.file("a.txt")
			if end != "none" && got != "new" {
				t.Fatalf("a.txt holds %q after %s and a crash", got, end)
			}
			if got != "new" && got != "old" {
				t.Fatalf("a.txt holds %q", got)
			}
			for _, ent := range must(e.mem.ReadDir("."))(t) {
				if vfs.IsTemp(ent.Name()) {
					t.Fatalf("temp file %s left beside a.txt", ent.Name())
				}
			}
			if end == "none" { // the turn never ended: nothing of it is promised
				return
			}
			s = must(e.ws.Open(e.ctx, id, SessionOptions{}))(t)
			defer s.Close()
			if l := must(s.Snapshots(e.ctx))(t); len(l.Snapshots) != 1 {
				t.Fatalf("snapshots after %s and a crash: %+v", end, l)
			}
			must(s.Undo(e.ctx))(t)
			if got := e.file("a.txt"); got != "old" {
				t.Fatalf("undo gave %q", got)
			}
		})
	}
}

// TestUnmadeChangeSettled: a change line that is the journal's last, whose
// file is still as before, was never made: a reader does not list it and
// the next owner cancels it with an abort line. One whose file is as after,
// or was edited since, stays.
func TestUnmadeChangeSettled(t *testing.T) {
	for _, c := range []struct {
		name, file string
		kept       bool
	}{
		{"still before", "one\n", false},
		{"made", "two\n", true},
		{"edited since", "mine\n", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newSnapEnv(t, "")
			s := e.session()
			must(s.ToolWrite(e.ctx, "seed.txt", []byte("seed")))(t)
			id := s.ID()
			s.Close()
			e.put("a.txt", c.file)
			line := `{"v":1,"kind":"change","id":"mx00001-0000000a","seq":2,"at":"2026-01-01T00:00:00.000Z","tool":"write","scope":"paths","files":[{"path":"a.txt",` +
				`"before":{"sha256":"` + sumHex("one\n") + `","size":4,"mode":"file","data":"` + base64.StdEncoding.EncodeToString([]byte("one\n")) + `"},` +
				`"after":{"sha256":"` + sumHex("two\n") + `","size":4,"mode":"file"}}]}`
			e.plant(id, []string{line})
			if l := must(e.ws.Snapshots(e.ctx, id))(t); (len(l.Snapshots) == 2) != c.kept {
				t.Fatalf("a reader lists %d snapshots", len(l.Snapshots))
			}
			s = must(e.ws.Open(e.ctx, id, SessionOptions{}))(t)
			if l := must(s.Snapshots(e.ctx))(t); (len(l.Snapshots) == 2) != c.kept {
				t.Fatalf("the owner lists %d snapshots", len(l.Snapshots))
			}
			if kinds := e.kinds(s); strings.HasSuffix(kinds, ",abort") == c.kept {
				t.Fatalf("journal kinds %s", kinds)
			}
			s.Close()
			kinds := e.kinds(s)
			e.want("a.txt", c.file)
			// Settled once: opening again writes nothing more.
			s = must(e.ws.Open(e.ctx, id, SessionOptions{}))(t)
			s.Close()
			if e.kinds(s) != kinds {
				t.Fatalf("a second open wrote %s after %s", e.kinds(s), kinds)
			}
		})
	}
}

// TestInlinePreImages: a small pre-image is in the line and round-trips
// through undo and redo, an empty one included (its hash says all of it);
// an inline F that lies about its content or size, is too large, or stands
// where only an object may ("kept") is refused as malformed.
func TestInlinePreImages(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	e.put("empty.txt", "")
	e.put("run.sh", "#!/bin/sh\n")
	os.Chmod(e.path("run.sh"), 0o755)
	os.Symlink("run.sh", e.path("link"))
	must(s.ToolWrite(e.ctx, "empty.txt", []byte("full")))(t)
	must(s.ToolWrite(e.ctx, "run.sh", []byte("#!/bin/sh\necho hi\n")))(t)
	must(s.ToolWrite(e.ctx, "link", []byte("a file now")))(t)
	if got := e.objectIDs(); len(got) != 0 {
		t.Fatalf("objects %v, want every pre-image inline", got)
	}
	for range 3 {
		must(s.Undo(e.ctx))(t)
	}
	e.want("empty.txt", "")
	e.want("run.sh", "#!/bin/sh\n")
	if fi, err := os.Stat(e.path("run.sh")); err != nil || fi.Mode().Perm()&0o100 == 0 {
		t.Fatalf("run.sh lost its executable bit: %v %v", fi, err)
	}
	if target, err := os.Readlink(e.path("link")); err != nil || target != "run.sh" {
		t.Fatalf("link is %q %v", target, err)
	}
	for range 3 {
		must(s.Redo(e.ctx))(t)
	}
	e.want("link", "a file now")

	data := func(b string) string { return base64.StdEncoding.EncodeToString([]byte(b)) }
	ref := func(sum string, size int, d string) *fstate.State {
		r := &fstate.State{SHA256: sum, Size: int64(size), Mode: fstate.ModeFile}
		if d != "" {
			r.Data, _ = base64.StdEncoding.DecodeString(d)
		}
		return r
	}
	big := strings.Repeat("x", fstate.MaxInline+1)
	for _, c := range []struct {
		name string
		f    *fstate.State
		form int
		ok   bool
	}{
		{"inline before", ref(sumHex("abc"), 3, data("abc")), fstate.FormBefore, true},
		{"empty before", ref(fstate.EmptySum, 0, ""), fstate.FormBefore, true},
		{"hash-only before", ref(sumHex("abc"), 3, ""), fstate.FormBefore, false},
		{"wrong hash", ref(sumHex("abd"), 3, data("abc")), fstate.FormBefore, false},
		{"wrong size", ref(sumHex("abc"), 4, data("abc")), fstate.FormBefore, false},
		{"too large", ref(sumHex(big), len(big), data(big)), fstate.FormBefore, false},
		{"inline after", ref(sumHex("abc"), 3, data("abc")), fstate.FormAfter, true},
		{"inline after, too large", ref(sumHex(big), len(big), data(big)), fstate.FormAfter, false},
		{"inline kept", ref(sumHex("abc"), 3, data("abc")), fstate.FormStored, false},
		{"empty kept", ref(fstate.EmptySum, 0, ""), fstate.FormStored, false},
		{"both", &fstate.State{OID: sumHex("abc"), SHA256: sumHex("abc"), Size: 3, Mode: fstate.ModeFile, Data: []byte("abc")}, fstate.FormBefore, false},
	} {
		if got := c.f.Valid(c.form); got != c.ok {
			t.Errorf("%s: valid = %v", c.name, got)
		}
	}
}

// TestChangesJournalFailure: when the change line cannot be written, a
// new file snapshots.required does not cover is still made, without a
// snapshot and named as skipped (nothing is lost); a write that would
// replace an existing file is refused and the file left as it was, and so
// is a required one, with its own refusal.
func TestChangesJournalFailure(t *testing.T) {
	for _, required := range []bool{false, true} {
		t.Run(map[bool]string{false: "optional", true: "required"}[required], func(t *testing.T) {
			mem := vfs.NewMem()
			faulty := vfs.NewFaulty(mem)
			st := must(OpenFS(faulty, "/mem"))(t)
			defer st.Close()
			if required {
				vfs.WriteFileAtomic(mem, "config.json", []byte(`{"snapshots":{"required":["*.txt"]}}`))
			}
			dir := t.TempDir()
			ws := must(st.Workspace(dir))(t)
			os.WriteFile(filepath.Join(dir, "a.txt"), []byte("precious"), 0o644)
			s := ws.Create(SessionOptions{})
			defer s.Close()
			must(s.ToolWrite(context.Background(), "warm.bin", []byte("materializes the session")))(t)
			faulty.Inject(vfs.Rule{Op: vfs.OpWrite, Path: "workspaces/*/sessions/*.changes.jsonl"})
			a, err := s.ToolWrite(context.Background(), "a.txt", []byte("written"))
			b, _ := os.ReadFile(filepath.Join(dir, "a.txt"))
			if required {
				refused(t, err, "store failed")
				if string(b) != "precious" {
					t.Fatalf("a required file was written: %q", b)
				}
				return
			}
			refused(t, err, "no snapshot of it can be taken")
			if string(b) != "precious" {
				t.Fatalf("a file was replaced with no snapshot: %q", b)
			}
			a, err = s.ToolWrite(context.Background(), "new.txt", []byte("written"))
			if err != nil {
				t.Fatal(err)
			}
			b, _ = os.ReadFile(filepath.Join(dir, "new.txt"))
			if string(b) != "written" || a.Snapshot != nil || len(a.Skipped) != 1 || a.Skipped[0] != filepath.Join(dir, "new.txt") {
				t.Fatalf("new.txt %q, answer %+v", b, a)
			}
			faulty.Reset()
			if l := must(s.Snapshots(context.Background()))(t); len(l.Snapshots) != 1 {
				t.Fatalf("snapshots %+v, want the warm-up only", l)
			}
		})
	}
}

// TestFailedToolKeepsTheStack: a tool that fails after its change line
// leaves the undo stack as it was: the undone branch can still be redone,
// and no snapshot is dropped for the limits, in memory and from the
// journal.
func TestFailedToolKeepsTheStack(t *testing.T) {
	mem := vfs.NewMem()
	faulty := vfs.NewFaulty(mem)
	e := newSnapEnv(t, `{"snapshots":{"max_per_session":2}}`, WithWorkspaceFS(func(string) (vfs.FS, error) { return faulty, nil }))
	s := e.session()
	must(s.ToolWrite(e.ctx, "a.txt", []byte("a1")))(t)
	must(s.ToolWrite(e.ctx, "b.txt", []byte("b1")))(t)
	must(s.Undo(e.ctx))(t)
	faulty.Inject(vfs.Rule{Op: vfs.OpSync, Path: ".c.txt*"})
	if _, err := s.ToolWrite(e.ctx, "c.txt", []byte("c1")); err == nil {
		t.Fatal("a write whose staged file cannot be synced succeeded")
	}
	faulty.Reset()
	if !strings.HasSuffix(e.kinds(s), "undo,change,abort") {
		t.Fatalf("journal kinds %s", e.kinds(s))
	}
	check := func(s *Session) {
		t.Helper()
		l := must(s.Snapshots(e.ctx))(t)
		if len(l.Snapshots) != 2 || l.Cursor != 1 {
			t.Fatalf("stack %+v, want a.txt's applied and b.txt's undone", l)
		}
	}
	check(s)
	s = e.reopen(s)
	check(s)
	must(s.Redo(e.ctx))(t)
	if b, _ := vfs.ReadFile(mem, "b.txt"); string(b) != "b1" {
		t.Fatalf("b.txt holds %q after redo", b)
	}
	if _, err := vfs.ReadFile(mem, "c.txt"); !vfs.IsNotExist(err) {
		t.Fatalf("c.txt exists: %v", err)
	}
}

// TestKilledOwnerRedoesNothing: an owner killed mid-turn (no power loss)
// lost no file change, so the next open makes none again: a file the user
// put back by hand before resuming stays as the user left it. After a
// power loss instead, the same files are made again from their lines.
func TestKilledOwnerRedoesNothing(t *testing.T) {
	for _, power := range []bool{false, true} {
		t.Run(map[bool]string{false: "killed", true: "power loss"}[power], func(t *testing.T) {
			e := newCrashEnv(t)
			e.putDurable(map[string]string{"a.txt": "a0", "b.txt": "b0"})
			s := e.ws.Create(SessionOptions{})
			must(s.Append(e.ctx, Item{Type: User, Text: "two edits"}))(t)
			must(0, s.EndTurn(e.ctx, Turn{}))(t)
			must(s.ToolWrite(e.ctx, "a.txt", []byte("a1")))(t)
			must(s.ToolWrite(e.ctx, "b.txt", []byte("b1")))(t)
			id := s.ID()
			if power {
				e.mem.Crash() // a.txt's rename is lost with its folder unsynced
			} else {
				e.mem.Kill()
				e.put("a.txt", "a0") // the user puts a.txt back by hand
			}
			s.Close()
			e.st.Close()
			e.open()
			s = must(e.ws.Open(e.ctx, id, SessionOptions{}))(t)
			defer s.Close()
			want := map[bool]string{false: "a0", true: "a1"}[power]
			if got := e.file("a.txt"); got != want {
				t.Fatalf("a.txt holds %q, want %q", got, want)
			}
		})
	}
}

// TestCrashAfterTwoTools: two tools of one turn, then a crash before the
// turn ends: the first tool's file change is made again from its line
// when a crash lost it, so at most the second is lost, and the session opened
// again lists exactly the changes its files show; undo puts back what was
// there before each.
func TestCrashAfterTwoTools(t *testing.T) {
	for _, second := range []string{"b.txt", "a.txt"} {
		t.Run(second, func(t *testing.T) {
			e := newCrashEnv(t)
			e.putDurable(map[string]string{"a.txt": "a0", "b.txt": "b0"})
			s := e.ws.Create(SessionOptions{})
			must(s.Append(e.ctx, Item{Type: User, Text: "two edits"}))(t)
			if err := s.EndTurn(e.ctx, Turn{}); err != nil {
				t.Fatal(err)
			}
			must(s.ToolWrite(e.ctx, "a.txt", []byte("a1")))(t)
			must(s.ToolWrite(e.ctx, second, []byte("x2")))(t)
			id := s.ID()
			e.crash(s)
			secondMade := e.file(second) == "x2"
			s = must(e.ws.Open(e.ctx, id, SessionOptions{}))(t)
			defer s.Close()
			// A crash may lose the first write's rename (its folder is
			// synced at the end of the turn), but its line holds the new
			// content: opened again, the session makes it again.
			if got := e.file("a.txt"); got != "a1" && second == "b.txt" {
				t.Fatalf("the first tool's write was lost: a.txt holds %q", got)
			}
			want := 1
			if secondMade {
				want = 2
			}
			if l := must(s.Snapshots(e.ctx))(t); len(l.Snapshots) != want {
				t.Fatalf("%d snapshots listed, want %d (second write made: %v)", len(l.Snapshots), want, secondMade)
			}
			for range want {
				must(s.Undo(e.ctx))(t)
			}
			if e.file("a.txt") != "a0" || e.file("b.txt") != "b0" {
				t.Fatalf("after undoing all: a.txt %q, b.txt %q", e.file("a.txt"), e.file("b.txt"))
			}
		})
	}
}

// TestToolAfterClose: a closed session's tools change nothing.
func TestToolAfterClose(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	e.put("a.txt", "before")
	must(s.ToolWrite(e.ctx, "warm.txt", []byte("warm")))(t)
	s.Close()
	if _, err := s.ToolWrite(e.ctx, "a.txt", []byte("after close")); err == nil {
		t.Fatal("a write on a closed session succeeded")
	}
	if _, err := s.ToolRm(e.ctx, "a.txt"); err == nil {
		t.Fatal("rm on a closed session succeeded")
	}
	e.want("a.txt", "before")
}

// TestFolderGoneBeforeTurnEnds: a folder a tool wrote into and the user
// removed before the turn ended has nothing left to sync: the turn ends
// without an error.
func TestFolderGoneBeforeTurnEnds(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	must(s.Append(e.ctx, Item{Type: User, Text: "build"}))(t)
	must(s.ToolWrite(e.ctx, "build/out/x.txt", []byte("x")))(t)
	if err := os.RemoveAll(e.path("build")); err != nil {
		t.Fatal(err)
	}
	if err := s.EndTurn(e.ctx, Turn{}); err != nil {
		t.Fatal(err)
	}
}

// TestChangeLineSyncFails: when the change line's fsync fails, the write
// of a file that is not required goes on, with no snapshot claimed: the
// line is cancelled, and the session opened again lists none.
func TestChangeLineSyncFails(t *testing.T) {
	mem := vfs.NewMem()
	faulty := vfs.NewFaulty(mem)
	st := must(OpenFS(faulty, "/mem"))(t)
	defer st.Close()
	dir := t.TempDir()
	ws := must(st.Workspace(dir))(t)
	s := ws.Create(SessionOptions{})
	must(s.ToolWrite(context.Background(), "warm.bin", []byte("materializes the session")))(t)
	faulty.Inject(vfs.Rule{Op: vfs.OpSync, Path: "workspaces/*/sessions/*.changes.jsonl", Count: 1})
	a := must(s.ToolWrite(context.Background(), "a.txt", []byte("written")))(t)
	if a.Snapshot != nil || len(a.Skipped) != 1 {
		t.Fatalf("answer %+v: a snapshot claimed on a failed sync", a)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "written" {
		t.Fatalf("a.txt holds %q", b)
	}
	s.Close()
	s = must(ws.Open(context.Background(), s.ID(), SessionOptions{}))(t)
	defer s.Close()
	if l := must(s.Snapshots(context.Background()))(t); len(l.Snapshots) != 1 {
		t.Fatalf("snapshots %+v, want the warm-up only", l)
	}
}

// TestToolsAndTurnsAtOnce: file tools and turn ends from several goroutines
// (run with -race): every write is listed and the turn ends return.
func TestToolsAndTurnsAtOnce(t *testing.T) {
	e := newSnapEnv(t, `{"snapshots":{"max_per_session":1000}}`)
	s := e.session()
	must(s.Append(e.ctx, Item{Type: User, Text: "go"}))(t)
	done := make(chan error, 8)
	for g := range 4 {
		go func() {
			for i := range 10 {
				if _, err := s.ToolWrite(e.ctx, filepath.Join("d", string(rune('a'+g)), "f.txt"), []byte{byte(i)}); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
		go func() {
			for range 10 {
				if err := s.Commit(e.ctx); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if l := must(s.Snapshots(e.ctx))(t); len(l.Snapshots) != 40 {
		t.Fatalf("%d snapshots, want 40", len(l.Snapshots))
	}
}

// TestFsckFoldsChangeJournals: fsck folds every changes journal and names
// each line the undo stack skips (an inline pre-image that does not hash to
// its name, an undo of a snapshot that is not there) by file and line; a
// journal the tools wrote, aborts included, is clean.
func TestFsckFoldsChangeJournals(t *testing.T) {
	mem := vfs.NewMem()
	faulty := vfs.NewFaulty(mem)
	e := newSnapEnv(t, "", WithWorkspaceFS(func(string) (vfs.FS, error) { return faulty, nil }))
	s := e.session()
	must(s.ToolWrite(e.ctx, "a.txt", []byte("one")))(t)
	must(s.ToolWrite(e.ctx, "a.txt", []byte("two")))(t)
	must(s.Undo(e.ctx))(t)
	faulty.Inject(vfs.Rule{Op: vfs.OpRename, Path: "*b.txt*"})
	if _, err := s.ToolWrite(e.ctx, "b.txt", []byte("b")); err == nil {
		t.Fatal("a write through a failing rename succeeded")
	}
	faulty.Reset()
	if !strings.Contains(e.kinds(s), "abort") {
		t.Fatalf("no abort line: %s", e.kinds(s))
	}
	rep := must(e.store.Fsck(e.ctx))(t)
	if len(rep.Problems) != 0 {
		t.Fatalf("problems in a journal the tools wrote: %+v", rep.Problems)
	}
	id := s.ID()
	s.Close()
	lies := `{"v":1,"kind":"change","id":"mx00001-0000000b","seq":9,"at":"2026-01-01T00:00:00.000Z","tool":"write","scope":"paths","files":[{"path":"c.txt",` +
		`"before":{"sha256":"` + sumHex("not this") + `","size":3,"mode":"file","data":"` + base64.StdEncoding.EncodeToString([]byte("abc")) + `"},"after":null}]}`
	stray := `{"v":1,"kind":"undo","id":"mx00001-0000000c","files":[]}`
	e.plant(id, []string{lies, stray})
	n := 0
	if _, err := journal.Read(e.store.fsys, changesName(e.ws.dir, id), func([]byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	rep = must(e.store.Fsck(e.ctx))(t)
	want := map[string]bool{}
	for _, k := range []int{n - 1, n} {
		want[fmt.Sprintf("%s:%d", changesName(e.ws.dir, id), k)] = true
	}
	if len(rep.Problems) != 2 || !want[rep.Problems[0].Path] || !want[rep.Problems[1].Path] {
		t.Fatalf("problems %+v, want lines %v", rep.Problems, want)
	}
}

// propList draws a snapshot list in one line: the cursor, then each
// snapshot's id tail, tool and whether it is applied.
func propList(l *SnapshotList) string {
	var b strings.Builder
	fmt.Fprintf(&b, "cursor=%d", l.Cursor)
	for _, sn := range l.Snapshots {
		fmt.Fprintf(&b, " %s:%s:%v", sn.ID[len(sn.ID)-4:], sn.Tool, sn.Applied)
	}
	return b.String()
}
