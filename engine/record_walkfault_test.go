package engine

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"syscall"
	"testing"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/fstate"
	"cairn/engine/internal/scope"
	"cairn/internal/vfs"
	"cairn/objects"
)

var walkFaultsAll = flag.Bool("walk-faults-all", false, "TestRecordingWalkFaults fails every read of the shell lines' walks, not every fourth (slow)")

// walkFaultCalls are the recorded calls of the walk fault suite: a tool
// call recording the whole workspace, and shell lines recording the
// workspace and named paths. Each changes two files of the workspace,
// one at its top and one two folders down, to "changed".
var walkFaultCalls = []struct {
	name string
	run  func(ctx context.Context, e *snapEnv, s *Session) (*CallRecord, error)
}{
	{"tool", func(ctx context.Context, e *snapEnv, s *Session) (*CallRecord, error) {
		return s.RecordCall(ctx, "mcp:fs/write", ToolOptions{}, func(context.Context) error {
			e.put("a.txt", "changed")
			e.put("src/deep/c.go", "changed")
			return nil
		})
	}},
	{"shell-paths", func(ctx context.Context, e *snapEnv, s *Session) (*CallRecord, error) {
		a, err := s.Exec(ctx, "printf changed > a.txt; printf changed > src/deep/c.go", ExecOptions{})
		if err != nil {
			return nil, err
		}
		return &CallRecord{Recorded: a.Snapshot != nil, Unrecorded: a.Unrecorded}, nil
	}},
	{"shell-workspace", func(ctx context.Context, e *snapEnv, s *Session) (*CallRecord, error) {
		a, err := s.Exec(ctx, "sh -c 'printf changed > a.txt; printf changed > src/deep/c.go'", ExecOptions{})
		if err != nil {
			return nil, err
		}
		return &CallRecord{Recorded: a.Snapshot != nil, Unrecorded: a.Unrecorded}, nil
	}},
}

// walkFaultEnv is a workspace with files in folders, a link and a
// .gitignore, and a session with a turn, whose recording walks read
// through a FaultyReader.
func walkFaultEnv(t *testing.T) (*snapEnv, *Session, *scope.FaultyReader, *[]string) {
	e := newSnapEnv(t, "")
	e.put("a.txt", "a")
	e.put("src/b.go", "package b")
	e.put("src/deep/c.go", "package c")
	e.put(".gitignore", "*.log\n")
	e.put("build.log", "noise")
	fr := scope.NewFaultyReader(scope.System{}, e.dir)
	e.store.walkRead = fr
	notices := &[]string{}
	s := e.ws.Create(SessionOptions{Notice: func(m string) { *notices = append(*notices, m) }})
	t.Cleanup(func() { s.Close() })
	must(s.Append(e.ctx, Item{Type: User, Text: "change a.txt"}))(t)
	must(s.Append(e.ctx, Item{Type: Assistant, Text: "on it"}))(t)
	return e, s, fr, notices
}

// TestRecordingWalkFaults fails each read the recording walks make (before
// and after the call), in turn, with an I/O error, a denied read and a
// name gone: the session stays consistent. A call whose walk before failed
// did not run; one whose walk after failed is closed unrecorded ("failed")
// with a notice; a record that is made names exactly the change the call
// made, its content before either stored or marked unread. No item is
// lost and no call is left open.
func TestRecordingWalkFaults(t *testing.T) {
	ctx := context.Background()
	injected, blocked, unrecorded, degraded := 0, 0, 0, 0
	for _, c := range walkFaultCalls {
		e, s, fr, _ := walkFaultEnv(t)
		if _, err := c.run(ctx, e, s); err != nil {
			t.Fatalf("%s without faults: %v", c.name, err)
		}
		calls := fr.Calls(vfs.OpAny)
		if calls == 0 {
			t.Fatalf("%s: the recording walks read nothing through the seam", c.name)
		}
		// Every read fails in turn with an I/O error, and (a tool call:
		// a shell line is slow) with a denied read. A name gone is
		// injected where a walk takes it for a race, at the open of a
		// folder it listed: a file gone is gone, not a fault.
		var rules []vfs.Rule
		stride := 1
		if c.name != "tool" && !*walkFaultsAll {
			stride = 4 // a shell line: every fourth read, unless asked
		}
		for k := 0; k < calls; k += stride {
			rules = append(rules, vfs.Rule{Skip: k, Count: 1, Err: syscall.EIO})
			if c.name == "tool" {
				rules = append(rules, vfs.Rule{Skip: k, Count: 1, Err: syscall.EACCES})
			}
		}
		for _, dir := range []string{".", "src", "src/deep"} {
			for skip := range 2 { // the walk before, then the one after
				rules = append(rules, vfs.Rule{Op: vfs.OpOpen, Path: dir, Skip: skip, Count: 1, Err: syscall.ENOENT})
			}
		}
		for _, rule := range rules {
			{
				name := fmt.Sprintf("%s/%s:%s+%d/%v", c.name, rule.Op, rule.Path, rule.Skip, rule.Err)
				e, s, fr, notices := walkFaultEnv(t)
				fr.Inject(rule)
				rc, err := c.run(ctx, e, s)
				fr.Reset()
				injected++
				switch {
				case err != nil:
					blocked++
					checkBlocked(t, name, e, s, err)
				case rc.Unrecorded != "":
					unrecorded++
					checkUnrecorded(t, name, e, s, rc, *notices)
				default:
					if checkRecorded(t, name, e, s) {
						degraded++
					}
				}
				checkWalkFaultSession(t, name, e, s)
				if t.Failed() {
					t.FailNow()
				}
			}
		}
	}
	t.Logf("walk faults injected: %d (%d calls blocked, %d ran unrecorded, %d recorded with content unread)", injected, blocked, unrecorded, degraded)
}

// checkBlocked: a call whose walk before failed did not run, said why,
// and closed nothing it had not opened.
func checkBlocked(t *testing.T, name string, e *snapEnv, s *Session, err error) {
	t.Helper()
	if !strings.Contains(err.Error(), "nothing was run") {
		t.Errorf("%s: blocked with %v, want it to say nothing was run", name, err)
	}
	if got := e.get("a.txt") + e.get("src/deep/c.go"); got != "apackage c" {
		t.Errorf("%s: a blocked call changed a.txt or src/deep/c.go: %q", name, got)
	}
	if k := e.recKinds(s); k != "" {
		t.Errorf("%s: a blocked call wrote record lines %s", name, k)
	}
}

// checkUnrecorded: a call whose walk after failed ran, and is closed
// unrecorded for that reason, with a notice.
func checkUnrecorded(t *testing.T, name string, e *snapEnv, s *Session, rc *CallRecord, notices []string) {
	t.Helper()
	if got := e.get("src/deep/c.go"); got != "changed" {
		t.Errorf("%s: the call ran but src/deep/c.go holds %q", name, got)
	}
	if rc.Unrecorded != changes.WhyFailed || e.recKinds(s) != "call,unrecorded" {
		t.Errorf("%s: unrecorded %q with lines %s", name, rc.Unrecorded, e.recKinds(s))
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "could not be recorded") {
		t.Errorf("%s: notices %q", name, notices)
	}
}

// checkRecorded: a record names a.txt, from "a" to "changed", its content
// before stored or marked unread (the fault a denied read), and nothing
// else but files marked unread on one side. It reports whether anything
// was marked unread.
func checkRecorded(t *testing.T, name string, e *snapEnv, s *Session) (unread bool) {
	t.Helper()
	if k := e.recKinds(s); k != "call,record" {
		t.Errorf("%s: record lines %s", name, k)
		return false
	}
	r := e.lastRecord(s)
	var named []changes.FileChange
	for _, g := range r.Files {
		switch {
		case g.Path == "a.txt" || g.Path == "src/deep/c.go":
			named = append(named, g)
		case g.Before != nil && g.After != nil && (g.Before.Skipped == fstate.SkipUnreadable) != (g.After.Skipped == fstate.SkipUnreadable):
			// A file one walk could not read: named as unknown on that
			// side, with the reason, never as made or removed.
			unread = true
		default:
			t.Errorf("%s: a wrong change record: %s %+v -> %+v", name, g.Path, g.Before, g.After)
			return false
		}
	}
	if len(named) != 2 {
		t.Errorf("%s: the record misses a change: %+v", name, r.Files)
		return false
	}
	for _, f := range named {
		if checkRecordedFile(t, name, e, f) {
			unread = true
		}
	}
	return unread
}

// checkRecordedFile: f is the change of one of the two files to
// "changed", its content before stored or marked unread.
func checkRecordedFile(t *testing.T, name string, e *snapEnv, f changes.FileChange) (unread bool) {
	t.Helper()
	if f.Before == nil || f.After == nil {
		t.Errorf("%s: %s recorded as made or removed: %+v", name, f.Path, f)
		return false
	}
	if f.Before.Skipped != "" {
		unread = true
	} else if got := e.content(f.Before); got != "a" && got != "package c" {
		t.Errorf("%s: %s before is %q", name, f.Path, got)
	}
	if want := objects.Sum([]byte("changed")).String(); f.After.Skipped == "" && f.After.SHA256 != want {
		t.Errorf("%s: %s after is %+v, want the hash of \"changed\"", name, f.Path, f.After)
	}
	return unread
}

// checkWalkFaultSession: no item is lost, every call is closed, the store
// is sound, and the session reopens and records once the fault is gone.
func checkWalkFaultSession(t *testing.T, name string, e *snapEnv, s *Session) {
	t.Helper()
	if n := len(s.Transcript()); n != 2 {
		t.Errorf("%s: the session holds %d items, want 2", name, n)
	}
	open := map[string]bool{}
	for _, l := range e.recLines(s) {
		switch l.Kind {
		case changes.KindCall:
			open[l.ID] = true
		case changes.KindRecord, changes.KindUnrecorded:
			delete(open, l.ID)
		}
	}
	if len(open) != 0 {
		t.Errorf("%s: calls left open: %v", name, open)
	}
	id := s.ID()
	if err := s.Close(); err != nil {
		t.Errorf("%s: close: %v", name, err)
	}
	rep, err := e.store.Fsck(e.ctx)
	if err != nil {
		t.Fatalf("%s: fsck: %v", name, err)
	}
	for _, p := range rep.Problems {
		t.Errorf("%s: after the fault: %s: %s", name, p.Path, p.Problem)
	}
	s2, err := e.ws.Open(e.ctx, id, SessionOptions{})
	if err != nil {
		t.Fatalf("%s: the session does not open once the fault is gone: %v", name, err)
	}
	defer s2.Close()
	if n := len(s2.Transcript()); n != 2 {
		t.Errorf("%s: the reopened session holds %d items, want 2", name, n)
	}
	rc, err := s2.RecordCall(e.ctx, "mcp:fs/write", ToolOptions{}, func(context.Context) error {
		e.put("a.txt", "again")
		return nil
	})
	if err != nil || !rc.Recorded || errors.Is(err, ErrRefused) {
		t.Errorf("%s: a call once the fault is gone: %+v %v", name, rc, err)
	}
}
