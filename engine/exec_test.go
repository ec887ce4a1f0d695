package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/fstate"
	"cairn/internal/vfs"
	"cairn/journal"
	"cairn/objects"
)

// recSeen is a record line of a changes journal, decoded.
type recSeen struct {
	Kind  string               `json:"kind"`
	ID    string               `json:"id"`
	Scope string               `json:"scope"`
	Paths []string             `json:"paths"`
	Why   string               `json:"why"`
	Files []changes.FileChange `json:"files"`
	IDs   []string             `json:"ids"`
}

// recLines is session s's lines of record kinds (and drops), in order.
func (e *snapEnv) recLines(s *Session) []recSeen {
	e.t.Helper()
	var out []recSeen
	_, err := journal.Read(e.store.fsys, changesName(e.ws.dir, s.ID()), func(b []byte) error {
		var l recSeen
		if err := json.Unmarshal(b, &l); err != nil {
			return err
		}
		if changes.RecordKind(l.Kind) || l.Kind == changes.KindDrop {
			out = append(out, l)
		}
		return nil
	})
	if err != nil && !vfs.IsNotExist(err) {
		e.t.Fatal(err)
	}
	return out
}

// recKinds is the kinds of recLines, comma-separated.
func (e *snapEnv) recKinds(s *Session) string {
	var k []string
	for _, l := range e.recLines(s) {
		k = append(k, l.Kind)
	}
	return strings.Join(k, ",")
}

// lastRecord is the newest record line of s.
func (e *snapEnv) lastRecord(s *Session) recSeen {
	e.t.Helper()
	ls := e.recLines(s)
	for i := len(ls) - 1; i >= 0; i-- {
		if ls[i].Kind == changes.KindRecord {
			return ls[i]
		}
	}
	e.t.Fatalf("no record line in %s", e.recKinds(s))
	return recSeen{}
}

// content is what state f holds: its inline data or its stored object.
func (e *snapEnv) content(f *fstate.State) string {
	e.t.Helper()
	if f == nil {
		return "<absent>"
	}
	if f.Inline() {
		return string(f.Data)
	}
	if f.OID == "" {
		e.t.Fatalf("state %+v is not stored", f)
	}
	id, err := objects.ParseID(f.OID)
	if err != nil {
		e.t.Fatal(err)
	}
	b, err := e.ws.objects().ReadAll(e.ctx, id, 1<<30)
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

// output is the text of output id of s.
func (e *snapEnv) output(s *Session, id string) string {
	e.t.Helper()
	r, err := e.ws.ReadOutput(e.ctx, s.ID(), id)
	if err != nil {
		e.t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

// fileOf is the file rel of record r.
func fileOf(t *testing.T, r recSeen, rel string) changes.FileChange {
	t.Helper()
	for _, f := range r.Files {
		if f.Path == rel {
			return f
		}
	}
	t.Fatalf("record %s does not name %s: %+v", r.ID, rel, r.Files)
	return changes.FileChange{}
}

// TestExecWorkspaceRecord: a shell line that the scope rules send to the
// whole workspace runs in the workspace; its call line is written before
// it, its record after, naming only the files it changed, each with its
// content before (stored) and after (by hash); the exit code is the
// shell's, and the output is kept.
func TestExecWorkspaceRecord(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	e.put("keep.txt", "same")
	e.put("edit.txt", "old")
	e.put("gone.txt", "bye")
	a := must(s.Exec(e.ctx, `x=1; echo new > edit.txt; echo made > "new$x.txt"; rm gone.txt; echo out; echo err >&2; exit 3`, ExecOptions{}))(t)
	if a.ExitCode != 3 || a.Snapshot == nil || a.Scope != scopeWorkspace || a.Unrecorded != "" {
		t.Fatalf("answer %+v", a)
	}
	e.want("edit.txt", "new\n")
	if got := e.recKinds(s); got != "call,record" {
		t.Fatalf("record lines %s", got)
	}
	r := e.lastRecord(s)
	if r.ID != *a.Snapshot || len(r.Files) != 3 {
		t.Fatalf("record %+v", r)
	}
	if f := fileOf(t, r, "edit.txt"); e.content(f.Before) != "old" || f.After.Sum() != fstate.Content([]byte("new\n"), "file").Sum() {
		t.Fatalf("edit.txt %+v", f)
	}
	if f := fileOf(t, r, "new1.txt"); f.Before != nil || f.After == nil {
		t.Fatalf("new1.txt %+v", f)
	}
	if f := fileOf(t, r, "gone.txt"); e.content(f.Before) != "bye" || f.After != nil {
		t.Fatalf("gone.txt %+v", f)
	}
	out := e.output(s, a.Output)
	if !strings.Contains(out, "out") || !strings.Contains(out, "err") || a.Output != "output-shell" {
		t.Fatalf("output %s: %q", a.Output, out)
	}
	h := must(e.ws.ShellHistory(e.ctx, s.ID()))(t)
	if len(h) != 1 || h[0].Exit != 3 || h[0].Status != ShellFinished || h[0].Stdout != "out\n" {
		t.Fatalf("shell history %+v", h)
	}
	// Not an undo snapshot.
	if l := must(s.Snapshots(e.ctx))(t); len(l.Snapshots) != 0 {
		t.Fatalf("exec made undo snapshots: %+v", l.Snapshots)
	}
}

// A shell line holds the workspace call lock while it runs, as a file tool
// does, the user's own line (!LINE) too: a file revert of another session
// of the workspace is refused as busy until the line ends, and then runs.
func TestExecHoldsWorkspaceCallLock(t *testing.T) {
	for _, own := range []bool{false, true} {
		t.Run(fmt.Sprint("own=", own), func(t *testing.T) { execHoldsCallLock(t, own) })
	}
}

func execHoldsCallLock(t *testing.T, own bool) {
	e := newSnapEnv(t, "")
	a := e.ws.Create(SessionOptions{})
	defer a.Close()
	b := e.ws.Create(SessionOptions{})
	defer b.Close()
	p := must(b.Append(e.ctx, Item{Type: User, Text: "make f"}))(t)
	must(b.ToolWrite(e.ctx, "f.txt", []byte("f\n")))(t)

	release := func() {
		if err := os.WriteFile(filepath.Join(e.dir, "go"), nil, 0o644); err != nil {
			t.Error(err)
		}
	}
	defer release() // before the sessions close: their Close waits for the line
	done := make(chan error, 1)
	go func() {
		// A line whose scope is the whole workspace: it says it started,
		// then waits until the test lets it end.
		_, err := a.Exec(e.ctx, "touch started; while [ ! -e go ]; do sleep 0.01; done", ExecOptions{Own: own})
		done <- err
	}()
	for {
		if _, err := os.Stat(filepath.Join(e.dir, "started")); err == nil {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("the line ended before it started: %v", err)
		case <-time.After(5 * time.Millisecond):
		}
	}
	if _, err := b.Revert(e.ctx, p.ID, RevertFiles); err == nil || !strings.Contains(err.Error(), "busy") {
		t.Fatalf("file revert while another session's line runs: %v, want busy", err)
	}
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	must(b.Revert(e.ctx, p.ID, RevertFiles))(t)
	if _, err := os.Stat(filepath.Join(e.dir, "f.txt")); !os.IsNotExist(err) {
		t.Fatalf("f.txt after the revert: %v", err)
	}
}

// A session's first shell line follows file-tool changes that all have
// their change lines: a file revert to a prompt before it reaches both the
// file tool's change and the line's record (an old journal's "first" start
// line does not move where the records start either).
func TestFileRevertAcrossFirstRecord(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.ws.Create(SessionOptions{})
	defer s.Close()
	p := must(s.Append(e.ctx, Item{Type: User, Text: "change things"}))(t)
	must(s.ToolWrite(e.ctx, "a.txt", []byte("a\n")))(t)
	must(s.Exec(e.ctx, "echo c > c.txt", ExecOptions{}))(t)
	must(s.Revert(e.ctx, p.ID, RevertFiles))(t)
	for _, f := range []string{"a.txt", "c.txt"} {
		if _, err := os.Stat(filepath.Join(e.dir, f)); !os.IsNotExist(err) {
			t.Fatalf("%s after the revert: %v", f, err)
		}
	}
}

// TestExecOutputToOneWriter: a line printing to stdout and stderr at once,
// both sent to one writer (the REPL's screen), reaches it line by line
// whole: the two copiers never write at the same time.
func TestExecOutputToOneWriter(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	var buf bytes.Buffer
	must(s.Exec(e.ctx, "for i in $(seq 300); do echo out$i; echo err$i >&2; done", ExecOptions{Stdout: &buf, Stderr: &buf}))(t)
	got := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(got) != 600 {
		t.Fatalf("%d lines", len(got))
	}
	for _, l := range got {
		if !strings.HasPrefix(l, "out") && !strings.HasPrefix(l, "err") {
			t.Fatalf("torn line %q", l)
		}
	}
}

// Closing a session cancels the shell lines it is running and waits for
// them to settle (seed 000, "Shell history" and "Stop and close"): the line
// is killed rather than waited for, and its end and output are kept. The
// line here ends by itself after about 20 s, as if it were never cancelled.
func TestCloseCancelsRunningExec(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.ws.Create(SessionOptions{})
	must(s.Append(e.ctx, Item{Type: User, Text: "run a long line"}))(t)
	type result struct {
		ans *ExecAnswer
		err error
	}
	done := make(chan result, 1)
	go func() {
		ans, err := s.Exec(e.ctx, "touch started; i=0; while [ $i -lt 2000 ]; do sleep 0.01; i=$((i+1)); done", ExecOptions{})
		done <- result{ans, err}
	}()
	for {
		if _, err := os.Stat(filepath.Join(e.dir, "started")); err == nil {
			break
		}
		select {
		case r := <-done:
			t.Fatalf("the line ended before it started: %+v %v", r.ans, r.err)
		case <-time.After(5 * time.Millisecond):
		}
	}
	must(0, s.Close())(t)
	r := <-done
	if r.ans == nil || r.ans.ExitCode != 128+9 {
		t.Fatalf("the line closing cancelled: %+v, %v (want killed: exit 137)", r.ans, r.err)
	}
	h := must(e.ws.ShellHistory(e.ctx, s.ID()))(t)
	if len(h) != 1 || h[0].Status != ShellFinished || h[0].Exit != 128+9 {
		t.Fatalf("shell history after the close: %+v", h)
	}
	if r.ans.Output == "" {
		t.Fatal("the cancelled line's output was not kept")
	}
	must(e.ws.ReadOutput(e.ctx, s.ID(), r.ans.Output))(t).Close()
}
