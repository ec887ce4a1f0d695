package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/fstate"
	"cairn/engine/internal/scope"
	"cairn/internal/vfs"
	"cairn/objects"
)

// execIn runs line in s, failing the test on error.
func (e *snapEnv) exec(s *Session, line string) *ExecAnswer {
	e.t.Helper()
	a, err := s.Exec(e.ctx, line, ExecOptions{})
	if err != nil {
		e.t.Fatalf("exec %q: %v", line, err)
	}
	return a
}

// paths is the paths of record r's files.
func paths(r recSeen) string {
	var ps []string
	for _, f := range r.Files {
		ps = append(ps, f.Path)
	}
	return strings.Join(ps, " ")
}

// TestExecReadOnlyLineRecordsNothing: a line that only reads writes no
// record line at all, and still runs and is kept in the shell history.
func TestExecReadOnlyLineRecordsNothing(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	e.put("a.txt", "one\ntwo\n")
	a := e.exec(s, "cat a.txt | wc -l && ls")
	if a.Scope != ScopeNone || a.Snapshot != nil || !strings.Contains(e.output(s, a.Output), "2") {
		t.Fatalf("answer %+v", a)
	}
	if k := e.recKinds(s); k != "" {
		t.Fatalf("record lines %q", k)
	}
	if h := must(e.ws.ShellHistory(e.ctx, s.ID()))(t); len(h) != 1 {
		t.Fatalf("shell history %+v", h)
	}
}

// TestExecPathsRecord: a line whose writes are all literal paths records
// those paths only: rm, touch, redirect targets, mv's both ends, cp's
// destination only; a path .gitignore ignores is recorded all the same;
// a file the line does not name, changed meanwhile, is not in the record.
func TestExecPathsRecord(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	e.put(".gitignore", "ignored.log\n")
	e.put("ignored.log", "log")
	e.put("src.txt", "src")
	e.put("from.txt", "moved")
	e.put("other.txt", "other")
	a := e.exec(s, "rm ignored.log && touch made.txt && echo hi > out.txt && mv from.txt to.txt && cp src.txt copy.txt")
	if a.Scope != scopePaths || a.Snapshot == nil {
		t.Fatalf("answer %+v", a)
	}
	ls := e.recLines(s)
	if ls[0].Kind != changes.KindCall || ls[0].Scope != scopePaths ||
		strings.Join(ls[0].Paths, " ") != "copy.txt from.txt ignored.log made.txt out.txt to.txt" {
		t.Fatalf("call line %+v", ls[0])
	}
	r := e.lastRecord(s)
	if got := paths(r); got != "copy.txt from.txt ignored.log made.txt out.txt to.txt" {
		t.Fatalf("record names %s", got)
	}
	if f := fileOf(t, r, "ignored.log"); e.content(f.Before) != "log" || f.After != nil {
		t.Fatalf("ignored.log %+v", f)
	}
	if f := fileOf(t, r, "from.txt"); e.content(f.Before) != "moved" || f.After != nil {
		t.Fatalf("from.txt %+v", f)
	}

	// mv into a folder records that whole folder; a file of it the line
	// does not touch is covered but unchanged, so not in the record.
	e.put("dir/old.txt", "old")
	e.put("m.txt", "m")
	e.exec(s, "mv m.txt dir")
	if r := e.lastRecord(s); paths(r) != "dir/m.txt m.txt" {
		t.Fatalf("mv into a folder records %s", paths(r))
	}
	// Outside paths are never recorded: a line writing only there records
	// nothing.
	outside := filepath.Join(t.TempDir(), "x")
	a = e.exec(s, "echo x > "+outside)
	if a.Scope != ScopeNone || a.Snapshot != nil {
		t.Fatalf("outside write %+v", a)
	}
}

// TestExecWorkspaceLeftOut: a whole-workspace record leaves out what
// .gitignore ignores, the names never held at the top (.env, .git ...),
// nested repositories and special files, and stores a link as a link.
func TestExecWorkspaceLeftOut(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	e.put(".gitignore", "*.log\nbuild/\n")
	e.put("old.log", "log")
	e.put("build/out", "o")
	e.put(".env", "SECRET=1")
	e.put("sub/.git/HEAD", "ref")
	e.put("sub/code.txt", "nested")
	e.put("deep/.env", "kept")
	a := e.exec(s, `f=1; echo 2 > .env; echo x > sub/code.txt; echo y > deep/.env; mkfifo pipe; ln -s deep/.env link; echo $f > real.txt; echo $f > old.log; echo $f > build/out`)
	if a.Scope != scopeWorkspace {
		t.Fatalf("scope %s", a.Scope)
	}
	r := e.lastRecord(s)
	if got := paths(r); got != "deep/.env link real.txt" {
		t.Fatalf("record names %s", got)
	}
	if f := fileOf(t, r, "link"); f.After == nil || f.After.Mode != "link" {
		t.Fatalf("link %+v", f)
	}
}

// TestExecLimits: a whole-workspace record over max_files or max_bytes_mb
// is refused and its call runs without one (an unrecorded line, the
// reason shown once); so is a named folder over them; a file over
// max_file_bytes_mb is recorded with its content before skipped.
func TestExecLimits(t *testing.T) {
	t.Run("max_files", func(t *testing.T) {
		e := newSnapEnv(t, `{"storage":{"snapshots":{"max_files":2}}}`)
		var notices []string
		s := e.ws.Create(SessionOptions{Notice: func(m string) { notices = append(notices, m) }})
		defer s.Close()
		e.put("a", "1")
		e.put("b", "2")
		e.put("big/c", "3")
		e.put("big/d", "4")
		e.put("big/e", "5")
		for _, line := range []string{"x=1; echo $x > a", "y=2; echo $y > b", "rm -r big"} {
			a := e.exec(s, line)
			if a.Unrecorded != changes.WhyMaxFiles || a.Snapshot != nil {
				t.Fatalf("%q: %+v", line, a)
			}
		}
		e.want("b", "2\n")
		e.want("big/c", "<absent>")
		if k := e.recKinds(s); k != "unrecorded,unrecorded,unrecorded" {
			t.Fatalf("record lines %s", k)
		}
		if len(notices) != 1 || !strings.Contains(notices[0], "max_files") {
			t.Fatalf("notices %q", notices)
		}
		// Under the limit, a named path is recorded.
		a := e.exec(s, "rm a")
		if a.Snapshot == nil {
			t.Fatalf("rm a: %+v", a)
		}
	})
	t.Run("max_files_after", func(t *testing.T) {
		// A call that takes the workspace over a limit is refused after it
		// ran: its call line is closed by an unrecorded line.
		e := newSnapEnv(t, `{"storage":{"snapshots":{"max_files":3}}}`)
		s := e.session()
		a := e.exec(s, "for i in 1 2 3 4 5; do echo $i > f$i; done")
		if a.Unrecorded != changes.WhyMaxFiles || a.Snapshot != nil {
			t.Fatalf("%+v", a)
		}
		if k := e.recKinds(s); k != "call,unrecorded" {
			t.Fatalf("record lines %s", k)
		}
	})
	t.Run("max_bytes", func(t *testing.T) {
		e := newSnapEnv(t, `{"storage":{"snapshots":{"max_bytes_mb":1}}}`)
		s := e.session()
		e.put("big.bin", string(noise(1, 700<<10)))
		e.put("big2.bin", string(noise(2, 700<<10)))
		a := e.exec(s, "x=1; echo $x > small.txt")
		if a.Unrecorded != changes.WhyMaxBytes {
			t.Fatalf("%+v", a)
		}
		e.want("small.txt", "1\n")
	})
	t.Run("max_file_bytes", func(t *testing.T) {
		e := newSnapEnv(t, `{"storage":{"snapshots":{"max_file_bytes_mb":1}}}`)
		s := e.session()
		e.put("huge.bin", string(noise(3, 1<<20+1)))
		e.put("small.txt", "s")
		a := e.exec(s, "x=1; echo $x > huge.bin; echo $x > small.txt")
		if a.Snapshot == nil || len(a.Skipped) != 1 || a.Skipped[0] != e.path("huge.bin") {
			t.Fatalf("%+v", a)
		}
		f := fileOf(t, e.lastRecord(s), "huge.bin")
		if f.Before == nil || f.Before.Skipped != changes.SkipMaxFile || f.Before.Size != 1<<20+1 {
			t.Fatalf("huge.bin %+v", f)
		}
		if f := fileOf(t, e.lastRecord(s), "small.txt"); e.content(f.Before) != "s" {
			t.Fatalf("small.txt %+v", f)
		}
	})
}

// TestConfigRecordingLimits: a recording limit above what the store
// accepts is lowered to it; zero is refused at load.
func TestConfigRecordingLimits(t *testing.T) {
	c := must(parseConfig([]byte(`{"storage":{"snapshots":{"max_bytes_mb":100000,"max_files":9999999,"max_file_bytes_mb":101}}}`)))(t)
	if c.Storage.MaxBytesMB != 512 || c.Storage.MaxFiles != 50000 || c.Storage.MaxFileBytesMB != 100 {
		t.Fatalf("limits not lowered: %+v", c.Storage)
	}
	c = must(parseConfig([]byte(`{"storage":{"snapshots":{"max_bytes_mb":3,"max_files":7,"max_file_bytes_mb":2}}}`)))(t)
	if c.Storage.MaxBytesMB != 3 || c.Storage.MaxFiles != 7 || c.Storage.MaxFileBytesMB != 2 {
		t.Fatalf("limits %+v", c.Storage)
	}
	for _, k := range []string{"max_bytes_mb", "max_files", "max_file_bytes_mb"} {
		_, err := parseConfig([]byte(`{"storage":{"snapshots":{"` + k + `":0}}}`))
		if err == nil || !strings.Contains(err.Error(), "storage.snapshots."+k) {
			t.Fatalf("%s 0: %v", k, err)
		}
	}
}

// TestExecStoreBudget: every new record trims the workspace's records to
// max_bytes_mb, oldest first, whichever session made them: this
// session's by a drop line, another's in drops.jsonl; the answer names
// them.
func TestExecStoreBudget(t *testing.T) {
	e := newSnapEnv(t, `{"storage":{"snapshots":{"max_bytes_mb":1}}}`)
	other := e.session()
	s := e.session()
	e.put("a.bin", string(noise(1, 400<<10)))
	e.put("b.bin", string(noise(2, 400<<10)))
	e.put("c.bin", string(noise(3, 400<<10)))
	first := *e.exec(other, "echo 1 > a.bin").Snapshot
	second := *e.exec(s, "echo 1 > b.bin").Snapshot
	a := e.exec(s, "echo 1 > c.bin")
	if !slices.Equal(a.Dropped, []string{first}) {
		t.Fatalf("dropped %v, want %s", a.Dropped, first)
	}
	drops, err := os.ReadFile(filepath.Join(e.ws.Folder(), dropsFile))
	if err != nil || !strings.Contains(string(drops), `"session":"`+other.ID()+`"`) || !strings.Contains(string(drops), first) {
		t.Fatalf("drops.jsonl %q %v", drops, err)
	}
	// The listing of the other session leaves its dropped record out.
	if l := must(e.ws.Snapshots(e.ctx, other.ID()))(t); len(l.Records) != 0 {
		t.Fatalf("records listed after their drop: %+v", l.Records)
	}
	if l := must(s.Snapshots(e.ctx))(t); len(l.Records) != 2 {
		t.Fatalf("records of the trimming session: %+v", l.Records)
	}
	e.put("d.bin", string(noise(4, 400<<10)))
	a = e.exec(s, "echo 1 > d.bin")
	if !slices.Equal(a.Dropped, []string{second}) {
		t.Fatalf("dropped %v, want %s", a.Dropped, second)
	}
	ls := e.recLines(s)
	if l := ls[len(ls)-1]; l.Kind != changes.KindDrop || !slices.Equal(l.IDs, []string{second}) {
		t.Fatalf("last line %+v", l)
	}
	// The other session records again (its trim drops this session's
	// oldest); this session's trims see that record, read again from the
	// other's grown journal, and drop it in its turn.
	e.put("e.bin", string(noise(5, 400<<10)))
	e.put("f.bin", string(noise(6, 400<<10)))
	e.put("g.bin", string(noise(7, 400<<10)))
	fifth := *e.exec(other, "echo 1 > e.bin").Snapshot
	e.exec(s, "echo 1 > f.bin")
	if a := e.exec(s, "echo 1 > g.bin"); !slices.Equal(a.Dropped, []string{fifth}) {
		t.Fatalf("dropped %v, want the other session's %s", a.Dropped, fifth)
	}
	if rep := must(e.store.Fsck(e.ctx))(t); len(rep.Problems) != 0 {
		t.Fatalf("fsck %+v", rep.Problems)
	}
}

// faultyEnv is a store on a fault-injecting filesystem, with a real
// workspace folder (shell lines run there).
func faultyEnv(t *testing.T) (*snapEnv, *vfs.Faulty) {
	t.Helper()
	st := openStore(t, storeSpec{mem: vfs.NewMem(), faults: true})
	return snapEnvOf(t, st.Store), st.faulty
}

// TestExecStoreFullRunsUnrecorded: a store that is full refuses the
// record; the call runs without one, and says why once per session.
func TestExecStoreFullRunsUnrecorded(t *testing.T) {
	e, state := faultyEnv(t)
	var notices []string
	s := e.ws.Create(SessionOptions{Notice: func(m string) { notices = append(notices, m) }})
	defer s.Close()
	e.exec(s, ":") // the session's files exist
	e.put("a.txt", "a")
	state.Inject(vfs.Rule{Op: vfs.OpWrite, Path: "workspaces/*/objects/*", Err: syscall.ENOSPC})
	for i, line := range []string{"x=1; echo $x > a.txt", "y=2; echo $y > a.txt"} {
		a := e.exec(s, line)
		if a.Unrecorded != changes.WhyFull || a.Snapshot != nil {
			t.Fatalf("%d: %+v", i, a)
		}
	}
	e.want("a.txt", "2\n")
	if len(notices) != 1 || !strings.Contains(notices[0], "full") {
		t.Fatalf("notices %q", notices)
	}
	if k := e.recKinds(s); k != "call,record,unrecorded,unrecorded" {
		t.Fatalf("record lines %s", k)
	}
}

// TestExecStoreErrorBlocks: any other store error blocks the call: it
// does not run, and the error names the reason.
func TestExecStoreErrorBlocks(t *testing.T) {
	e, state := faultyEnv(t)
	s := e.session()
	e.exec(s, ":")
	e.put("a.txt", "a")
	state.Inject(vfs.Rule{Op: vfs.OpWrite, Path: "workspaces/*/objects/*", Err: syscall.EIO})
	_, err := s.Exec(e.ctx, "x=1; echo $x > a.txt", ExecOptions{})
	if err == nil || !strings.Contains(err.Error(), "nothing was run") {
		t.Fatalf("err %v", err)
	}
	e.want("a.txt", "a")
	state.Reset()
	// The call line cannot be written: blocked too.
	state.Inject(vfs.Rule{Op: vfs.OpWrite, Path: "workspaces/*/sessions/*.changes.jsonl", Err: syscall.EIO})
	_, err = s.Exec(e.ctx, "x=1; echo $x > a.txt", ExecOptions{})
	if err == nil {
		t.Fatal("exec ran without its call line")
	}
	e.want("a.txt", "a")
	state.Reset()
	if h := must(e.ws.ShellHistory(e.ctx, s.ID()))(t); len(h) != 1 {
		t.Fatalf("a blocked line is in the shell history: %+v", h)
	}
}

// TestExecStateFolderInWorkspace: a workspace that contains the state
// folder records nothing and says so once.
func TestExecStateFolderInWorkspace(t *testing.T) {
	dir := must(Canonical(t.TempDir()))(t)
	st := must(Open(filepath.Join(dir, ".cairn")))(t)
	defer st.Close()
	ws := must(st.Workspace(dir))(t)
	var notices []string
	s := ws.Create(SessionOptions{Notice: func(m string) { notices = append(notices, m) }})
	defer s.Close()
	e := &snapEnv{t: t, ctx: context.Background(), store: st, ws: ws, dir: dir}
	for _, line := range []string{"x=1; echo $x > a.txt", "rm a.txt"} {
		if a := e.exec(s, line); a.Unrecorded != changes.WhyStateFolder {
			t.Fatalf("%q: %+v", line, a)
		}
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "state folder") {
		t.Fatalf("notices %q", notices)
	}
}

// TestExecRecordingOffAndOn: with recording off a call runs unrecorded
// after an off line; when it comes back on a start line moves the point
// where the session's records start.
func TestExecRecordingOffAndOn(t *testing.T) {
	e := newSnapEnv(t, "")
	reopen := func(s *Session, opts SessionOptions) *Session {
		t.Helper()
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		return must(e.ws.Open(e.ctx, s.ID(), opts))(t)
	}
	s := e.session()
	must(s.Append(e.ctx, Item{Type: User, Text: "hi"}))(t)
	e.put("w", "1")
	e.exec(s, "rm w")
	s = reopen(s, SessionOptions{NoSnapshots: true})
	if a := e.exec(s, "rm -f x"); a.Unrecorded != changes.WhyDisabled {
		t.Fatalf("%+v", a)
	}
	e.exec(s, "rm -f y")
	s = reopen(s, SessionOptions{})
	defer s.Close()
	e.put("x", "1")
	e.exec(s, "rm x")
	if k := e.recKinds(s); k != "call,record,off,unrecorded,unrecorded,start,call,record" {
		t.Fatalf("record lines %s", k)
	}
	if l := e.lines(s); !slices.ContainsFunc(l, func(m map[string]any) bool { return m["kind"] == "start" && m["why"] == "enabled" }) {
		t.Fatalf("no start line why enabled: %v", l)
	}
	// A session with no record yet writes no off line: nothing to reach
	// back to.
	s4 := e.ws.Create(SessionOptions{NoSnapshots: true})
	defer s4.Close()
	e.exec(s4, "rm -f q")
	if k := e.recKinds(s4); k != "unrecorded" {
		t.Fatalf("record lines %s", k)
	}
	// Off by config.
	e2 := newSnapEnv(t, `{"storage":{"snapshots":{"enabled":false}}}`)
	s2 := e2.session()
	if a := e2.exec(s2, "rm -f z"); a.Unrecorded != changes.WhyDisabled {
		t.Fatalf("%+v", a)
	}
	// A session's first record writes no start line: a revert may reach
	// back to the prompt before it.
	e3 := newSnapEnv(t, "")
	s3 := e3.session()
	e3.exec(s3, "rm -f z")
	if k := e3.recKinds(s3); k != "call,record" {
		t.Fatalf("record lines %s", k)
	}
}

// TestExecInterruptedCallClosedOnOpen: a call line its owner left open (a
// crash while the command ran) is closed by the next owner with an
// unrecorded line, why interrupted.
func TestExecInterruptedCallClosedOnOpen(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	e.exec(s, "rm -f x")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	e.plant(s.ID(), []string{`{"v":1,"kind":"call","id":"zz-0000abcd","at":"2026-01-01T00:00:00.000Z","tool":"exec","scope":"workspace"}`})
	r := must(e.ws.Open(e.ctx, s.ID(), SessionOptions{}))(t)
	defer r.Close()
	ls := e.recLines(r)
	if l := ls[len(ls)-1]; l.Kind != changes.KindUnrecorded || l.ID != "zz-0000abcd" || l.Why != changes.WhyInterrupted {
		t.Fatalf("last line %+v", l)
	}
	// Fsck knows every kind.
	rep := must(e.store.Fsck(e.ctx))(t)
	if len(rep.Problems) != 0 {
		t.Fatalf("fsck: %+v", rep.Problems)
	}
}

// TestExecWatchedWorkspace: with a watcher, a record rescans the paths
// changed since the last walk; an edit made between two calls is not the
// second call's change, and a file the second changes is, with the
// content the edit left as its content before.
func TestExecWatchedWorkspace(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.ws.Create(SessionOptions{Watch: true})
	defer s.Close()
	e.put("a.txt", "a")
	e.put("sub/b.txt", "b")
	e.exec(s, "x=1; echo $x > a.txt")
	e.put("sub/b.txt", "hand edit")
	e.put("sub/new.txt", "new by hand")
	a := e.exec(s, "x=2; echo $x > sub/b.txt")
	r := e.lastRecord(s)
	if paths(r) != "sub/b.txt" || a.Snapshot == nil {
		t.Fatalf("record names %s", paths(r))
	}
	if f := fileOf(t, r, "sub/b.txt"); e.content(f.Before) != "hand edit" {
		t.Fatalf("sub/b.txt %+v", f)
	}
	if s.calls.Watcher == nil {
		t.Fatal("no watcher")
	}
}

// TestExecOwnLineGetsNoRecord: the user's own line (!LINE) runs and is
// kept in the shell history, but gets no record of its own.
func TestExecOwnLineGetsNoRecord(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	a := must(s.Exec(e.ctx, "x=1; echo $x > mine.txt", ExecOptions{Own: true}))(t)
	if a.Snapshot != nil || a.Scope != ScopeNone {
		t.Fatalf("%+v", a)
	}
	e.want("mine.txt", "1\n")
	if k := e.recKinds(s); k != "" {
		t.Fatalf("record lines %s", k)
	}
}

// TestExecCancelKillsAndRecords: a cancelled exec kills the whole line and
// records what it changed until then.
func TestExecCancelKillsAndRecords(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	ctx, cancel := context.WithCancel(e.ctx)
	done := make(chan struct{})
	var a *ExecAnswer
	var err error
	go func() {
		defer close(done)
		a, err = s.Exec(ctx, "x=1; echo $x > before.txt; sleep 30 | cat; echo $x > after.txt", ExecOptions{})
	}()
	for e.get("before.txt") == "<absent>" {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	<-done
	if err == nil || a == nil || a.ExitCode == 0 || a.Snapshot == nil {
		t.Fatalf("cancelled exec: %+v, %v", a, err)
	}
	e.want("after.txt", "<absent>")
	if r := e.lastRecord(s); paths(r) != "before.txt" {
		t.Fatalf("record names %s", paths(r))
	}
}

// TestRecordCallOfOtherTool: another tool's call (an MCP tool) records
// the whole workspace through the same function, under its own name.
func TestRecordCallOfOtherTool(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	e.put("a.txt", "a")
	rc := must(s.RecordCall(e.ctx, "mcp:fs/write", ToolOptions{}, func(context.Context) error {
		e.put("a.txt", "changed by the tool")
		return nil
	}))(t)
	r := e.lastRecord(s)
	if !rc.Recorded || r.ID != rc.ID || paths(r) != "a.txt" || e.content(fileOf(t, r, "a.txt").Before) != "a" {
		t.Fatalf("record %+v %+v", rc, r)
	}
	if l := e.lines(s); l[len(l)-1]["tool"] != "mcp:fs/write" {
		t.Fatalf("tool %v", l[len(l)-1])
	}
	if _, err := s.RecordCall(e.ctx, "bad tool name", ToolOptions{}, nil); !errors.Is(err, ErrBadInput) {
		t.Fatalf("bad name: %v", err)
	}
}

// TestFileToolsMarkRecordingOff: a file tool run with recording off
// writes the off line too, and one run when it is back on the start line,
// so a file revert cannot reach back across the time it was off.
func TestFileToolsMarkRecordingOff(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	must(s.ToolWrite(e.ctx, "a.txt", []byte("a")))(t)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = must(e.ws.Open(e.ctx, s.ID(), SessionOptions{NoSnapshots: true}))(t)
	must(s.ToolWrite(e.ctx, "a.txt", []byte("b")))(t)
	must(s.ToolWrite(e.ctx, "a.txt", []byte("c")))(t)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = must(e.ws.Open(e.ctx, s.ID(), SessionOptions{}))(t)
	defer s.Close()
	must(s.ToolWrite(e.ctx, "a.txt", []byte("d")))(t)
	must(s.ToolWrite(e.ctx, "a.txt", []byte("e")))(t)
	if k := e.kinds(s); k != "change,close,off,close,start,change,change" {
		t.Fatalf("lines %s", k)
	}
}

// TestExecShellHistoryFailureBlocks: a line whose shell-history start
// cannot be written does not run; its call line is closed by an empty
// record (it changed nothing), so no call is left open.
func TestExecShellHistoryFailureBlocks(t *testing.T) {
	e, state := faultyEnv(t)
	s := e.session()
	e.exec(s, ":")
	state.Inject(vfs.Rule{Op: vfs.OpWrite, Path: "workspaces/*/sessions/*.shell.jsonl", Err: syscall.EIO})
	_, err := s.Exec(e.ctx, "x=1; echo $x > a.txt", ExecOptions{})
	if err == nil || !strings.Contains(err.Error(), "shell") {
		t.Fatalf("err %v", err)
	}
	state.Reset()
	e.want("a.txt", "<absent>")
	ls := e.recLines(s)
	if l := ls[len(ls)-1]; l.Kind != changes.KindRecord || len(l.Files) != 0 || ls[len(ls)-2].Kind != changes.KindCall {
		t.Fatalf("lines %s", e.recKinds(s))
	}
}

// TestExecBeforeObjectGone: a file whose content before a walk vouches
// for (its stat cache), but whose object is gone since (a prune), is
// named with its content before skipped, never as a missing object.
func TestExecBeforeObjectGone(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	e.put("a.txt", "now")
	cfg := must(s.config())(t)
	c := &callCapture{s: s, sc: callScope{Kind: scopeWorkspace}, cfg: cfg.Storage, objs: s.snapObjects()}
	gone := objects.Sum([]byte("never stored"))
	c.tree = scope.NewTree([]scope.Entry{{Path: "a.txt", Mode: 0o644, Size: 12, Hash: gone}})
	files := must(c.after(e.ctx))(t)
	if len(files) != 1 || files[0].Path != "a.txt" || files[0].Before == nil || files[0].Before.Skipped != fstate.SkipMissing {
		t.Fatalf("files %+v", files)
	}
}

// TestExecBeforeLinkStored: a link a call changed is named with its
// target before as a stored object, though the walk before the call
// stored no link: the record stores it from the walk, before its line.
func TestExecBeforeLinkStored(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	cfg := must(s.config())(t)
	c := &callCapture{s: s, sc: callScope{Kind: scopeWorkspace}, cfg: cfg.Storage, objs: s.snapObjects()}
	target := "somewhere/never-stored"
	c.tree = scope.NewTree([]scope.Entry{{Path: "ln", Mode: fs.ModeSymlink | 0o777, Size: int64(len(target)),
		Link: target, Hash: objects.Sum([]byte(target))}})
	files := must(c.after(e.ctx))(t)
	if len(files) != 1 || files[0].Path != "ln" || files[0].Before == nil || files[0].Before.OID == "" || files[0].Before.Skipped != "" {
		t.Fatalf("files %+v", files)
	}
	if e.content(files[0].Before) != target {
		t.Fatalf("the link's target before is %q, want %q", e.content(files[0].Before), target)
	}

	// And through a shell line, with the watcher and without: removed,
	// then made again to another target.
	for _, watch := range []bool{false, true} {
		s := e.ws.Create(SessionOptions{Watch: watch})
		defer s.Close()
		ln := fmt.Sprintf("ln%v", watch)
		if err := os.Symlink("first", e.path(ln)); err != nil {
			t.Fatal(err)
		}
		e.exec(s, ":")
		e.exec(s, fmt.Sprintf("x=%s; rm $x", ln))
		if f := fileOf(t, e.lastRecord(s), ln); e.content(f.Before) != "first" || f.After != nil {
			t.Fatalf("watch %v: removed link before %q, after %+v", watch, e.content(f.Before), f.After)
		}
		e.exec(s, fmt.Sprintf("x=%s; ln -s second $x", ln))
		e.exec(s, fmt.Sprintf("x=%s; ln -sf third $x", ln))
		if f := fileOf(t, e.lastRecord(s), ln); e.content(f.Before) != "second" {
			t.Fatalf("watch %v: changed link before %q", watch, e.content(f.Before))
		}
	}
}

// TestExecStatCacheKeptBetweenProcesses: the stat cache is saved when the
// session closes and loaded by the next process's first record, whose
// record still names each content before by a stored object.
func TestExecStatCacheKeptBetweenProcesses(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	e.put("a.txt", "first")
	e.exec(s, ":")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(e.ws.Folder(), statCacheFile)); err != nil {
		t.Fatalf("no stat cache saved: %v", err)
	}
	st2 := must(Open(e.store.home))(t)
	defer st2.Close()
	ws2 := must(st2.Workspace(e.dir))(t)
	s2 := ws2.Create(SessionOptions{})
	defer s2.Close()
	must(s2.Exec(e.ctx, "x=1; echo $x > a.txt", ExecOptions{}))(t)
	if f := fileOf(t, e.lastRecord(s2), "a.txt"); e.content(f.Before) != "first" {
		t.Fatalf("a.txt %+v", f)
	}
}

// TestExecStatCacheNotSavedUnchanged: a session whose records walked the
// workspace but learned no file (here a workspace of empty folders) does
// not write the stat cache when it closes: a save would only write what
// the file holds, and sync it.
func TestExecStatCacheNotSavedUnchanged(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	if err := os.MkdirAll(e.path("d/e"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.exec(s, ":")
	e.exec(s, ":")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(e.ws.Folder(), statCacheFile)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a stat cache that learned nothing was saved: %v", err)
	}
}

// TestFileRevertAcrossExecRecords: file revert reads exec records as it
// reads change lines: a revert to the prompt before two shell lines (one
// whole-workspace, one of literal paths) puts back what they changed, and
// leaves a file no record names as it is.
func TestFileRevertAcrossExecRecords(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	e.put("a.txt", "a0")
	e.put("c.txt", "c0")
	e.put("mine.txt", "m0")
	p := must(s.Append(e.ctx, Item{Type: User, Text: "change things"}))(t)
	e.exec(s, "x=1; echo $x > a.txt; echo new > b.txt; rm c.txt")
	e.exec(s, "rm a.txt")
	e.put("mine.txt", "m1 by hand")
	must(s.Revert(e.ctx, p.ID, RevertFiles))(t)
	e.want("a.txt", "a0")
	e.want("b.txt", "<absent>")
	e.want("c.txt", "c0")
	e.want("mine.txt", "m1 by hand")
}

// TestFileRevertStopsAtUnstoredExecFile: a file over max_file_bytes_mb an
// exec changed was not stored: a file revert across that exec stops with
// an unrecorded conflict, and changes nothing.
func TestFileRevertStopsAtUnstoredExecFile(t *testing.T) {
	e := newSnapEnv(t, `{"storage":{"snapshots":{"max_file_bytes_mb":1}}}`)
	s := e.session()
	big := string(noise(5, 1<<20+1))
	e.put("huge.bin", big)
	e.put("a.txt", "a0")
	p := must(s.Append(e.ctx, Item{Type: User, Text: "change"}))(t)
	e.exec(s, "x=1; echo $x > huge.bin; echo $x > a.txt")
	_, err := s.Revert(e.ctx, p.ID, RevertFiles)
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "unrecorded") || !strings.Contains(err.Error(), "huge.bin") {
		t.Fatalf("err %v", err)
	}
	e.want("a.txt", "1\n")
}

// TestHoldsState: the one rule of what a recorder leaves alone, through
// the engine's canonical paths: a workspace holding the state folder,
// lying in it, or reached through a link to either, holds it; so does one
// holding the persistent state folder of an ephemeral store (its ledger).
func TestHoldsState(t *testing.T) {
	root := must(Canonical(t.TempDir()))(t)
	home := filepath.Join(root, "home", ".cairn")
	for _, d := range []string{filepath.Join(home, "x"), filepath.Join(root, "other"), filepath.Join(root, "eph")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(root, "home"), filepath.Join(root, "alias")); err != nil {
		t.Fatal(err)
	}
	st := must(Open(home))(t)
	defer st.Close()
	eph := must(OpenEphemeral(home, WithEphemeralRoot(filepath.Join(root, "eph"))))(t)
	defer eph.Close()
	cases := []struct {
		st   *Store
		dir  string
		want bool
	}{
		{st, filepath.Join(root, "home"), true},
		{st, root, true},
		{st, filepath.Join(home, "x"), true},
		{st, filepath.Join(root, "alias"), true},
		{st, filepath.Join(root, "other"), false},
		{eph, filepath.Join(root, "home"), true},
		{eph, filepath.Join(root, "other"), false},
	}
	for _, c := range cases {
		ws := must(c.st.Workspace(c.dir))(t)
		if got := ws.holdsState(); got != c.want {
			t.Errorf("holdsState of %s (ephemeral %v) = %v, want %v", c.dir, c.st.Ephemeral(), got, c.want)
		}
	}
}
