package engine

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cairn/engine/internal/changes"
	"cairn/internal/vfs"
)

// hookPair opens the agent session a (one hook process), runs fn, closes.
func (e *snapEnv) hookPair(a AgentSession, fn func(s *Session)) {
	e.t.Helper()
	s := must(e.ws.OpenAgent(e.ctx, a, SessionOptions{}, true, 0))(e.t)
	fn(s)
	if err := s.Close(); err != nil {
		e.t.Fatal(err)
	}
}

// sh runs line as the agent would, in the workspace.
func (e *snapEnv) sh(line string) {
	e.t.Helper()
	cmd := exec.Command("/bin/sh", "-c", line)
	cmd.Dir = e.dir
	if out, err := cmd.CombinedOutput(); err != nil {
		e.t.Fatalf("%s: %v\n%s", line, err, out)
	}
}

// TestPendingExecRecordsAcrossOpens: the pre-tool hook of a shell command
// writes no call line, so a hook process opening the session between Pre
// and Post (a prompt, a file edit) finds no call to close as interrupted;
// Post writes the call and record lines, which file revert reads as any
// exec record, with its conflict checks.
func TestPendingExecRecordsAcrossOpens(t *testing.T) {
	e := newSnapEnv(t, "")
	a := AgentSession{Agent: "claude-code", ID: "bash-1"}
	e.put("a.txt", "a0")
	e.put("b.txt", "b0")
	var prompt Item
	e.hookPair(a, func(s *Session) { prompt = must(s.Append(e.ctx, Item{Type: User, Text: "run"}))(t) })
	var p *PendingExec
	e.hookPair(a, func(s *Session) {
		p = must(s.BeginExec(e.ctx, "bash", "toolu_1", "for f in a b; do echo 1 > $f.txt; done", ""))(t)
	})
	if p.Scope != scopeWorkspace || p.ID == "" {
		t.Fatalf("pending %+v", p)
	}
	// Another hook opens the session meanwhile.
	e.hookPair(a, func(s *Session) {
		if k := e.recKinds(s); k != "" {
			t.Fatalf("lines before Post: %q", k)
		}
	})
	e.sh("for f in a b; do echo 1 > $f.txt; done")
	e.hookPair(a, func(s *Session) {
		ans := must(s.SettleChange(e.ctx, "toolu_1"))(t)
		if ans == nil || ans.Snapshot == nil || *ans.Snapshot != p.ID || len(ans.Files) != 2 {
			t.Fatalf("answer %+v", ans)
		}
	})
	s := must(e.ws.OpenAgent(e.ctx, a, SessionOptions{}, false, 0))(t)
	defer s.Close()
	ls := e.recLines(s)
	if len(ls) != 2 || ls[0].Kind != changes.KindCall || ls[1].Kind != changes.KindRecord || ls[0].ID != p.ID || ls[1].ID != p.ID || paths(ls[1]) != "a.txt b.txt" {
		t.Fatalf("lines %+v", ls)
	}
	if ms, _ := filepath.Glob(filepath.Join(e.ws.Folder(), "hooks", s.ID(), "*")); len(ms) != 0 {
		t.Fatalf("markers left: %v", ms)
	}
	l := must(s.Snapshots(e.ctx))(t)
	if len(l.Snapshots) != 0 || len(l.Records) != 1 || l.Records[0].Tool != "bash" || len(l.Records[0].Files) != 2 {
		t.Fatalf("listing %+v", l)
	}
	// Undo is the file tools': nothing to undo.
	if _, err := s.Undo(e.ctx); !errors.Is(err, ErrRefused) {
		t.Fatalf("undo: %v", err)
	}
	// A file changed by hand since the record: file revert refuses.
	e.put("b.txt", "by hand")
	_, err := s.Revert(e.ctx, prompt.ID, RevertFiles)
	var ce *RevertConflictError
	if !errors.As(err, &ce) || len(ce.Files.Conflicts) != 1 || ce.Files.Conflicts[0].Kind != "changed" {
		t.Fatalf("revert over a changed file: %v", err)
	}
	e.put("b.txt", "1\n")
	must(s.Revert(e.ctx, prompt.ID, RevertFiles))(t)
	e.want("a.txt", "a0")
	e.want("b.txt", "b0")
}

// TestPendingExecReadOnlyAndRefused: a line that only reads leaves no
// marker and no line; with recording off the store refuses the record: an
// unrecorded line at once, no marker, and Post records nothing.
func TestPendingExecReadOnlyAndRefused(t *testing.T) {
	e := newSnapEnv(t, `{"storage":{"snapshots":{"enabled":false}}}`)
	a := AgentSession{Agent: "codex", ID: "bash-2"}
	e.hookPair(a, func(s *Session) {
		if p := must(s.BeginExec(e.ctx, "bash", "c1", "git status && cat x | wc -l", ""))(t); p.Scope != ScopeNone {
			t.Fatalf("read-only line: %+v", p)
		}
		p := must(s.BeginExec(e.ctx, "bash", "c2", "rm x", ""))(t)
		if p.Unrecorded != changes.WhyDisabled {
			t.Fatalf("refused: %+v", p)
		}
		if ans := must(s.SettleChange(e.ctx, "c2"))(t); ans != nil {
			t.Fatalf("settled a refused record: %+v", ans)
		}
		if k := e.recKinds(s); k != "unrecorded" {
			t.Fatalf("lines %q", k)
		}
	})
}

// TestPendingExecStaleAndLost: a marker whose Post never came (the agent
// died) is removed after a day by the session's next Pre, with an
// unrecorded line why "interrupted"; a marker whose walk is lost closes its
// call why "failed" at Post. fsck finds nothing wrong either way.
func TestPendingExecStaleAndLost(t *testing.T) {
	e := newSnapEnv(t, "")
	a := AgentSession{Agent: "claude-code", ID: "bash-3"}
	e.put("a.txt", "a0")
	e.hookPair(a, func(s *Session) { must(s.Append(e.ctx, Item{Type: User, Text: "run"}))(t) })
	var dead, lost *PendingExec
	e.hookPair(a, func(s *Session) {
		dead = must(s.BeginExec(e.ctx, "bash", "toolu_dead", "rm a.txt", ""))(t)
		lost = must(s.BeginExec(e.ctx, "bash", "toolu_lost", "touch b.txt", ""))(t)
	})
	dir := filepath.Join(e.ws.Folder(), "hooks", ImportSessionID(a.Agent, a.ID))
	old := time.Now().Add(-25 * time.Hour)
	for _, n := range []string{"toolu_dead.json", "toolu_dead.tree"} {
		if err := os.Chtimes(filepath.Join(dir, n), old, old); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(filepath.Join(dir, "toolu_lost.tree")); err != nil {
		t.Fatal(err)
	}
	var notices []string
	s := must(e.ws.OpenAgent(e.ctx, a, SessionOptions{Notice: func(m string) { notices = append(notices, m) }}, false, 0))(t)
	defer s.Close()
	e.sh("touch b.txt")
	if ans := must(s.SettleChange(e.ctx, "toolu_lost"))(t); ans == nil || ans.Snapshot != nil {
		t.Fatalf("lost walk: %+v", ans)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "lost") {
		t.Fatalf("notices %q", notices)
	}
	must(s.BeginExec(e.ctx, "bash", "toolu_next", "rm a.txt", ""))(t)
	ls := e.recLines(s)
	if len(ls) != 2 || ls[0].ID != lost.ID || ls[0].Why != changes.WhyFailed || ls[1].ID != dead.ID || ls[1].Why != changes.WhyInterrupted {
		t.Fatalf("lines %+v", ls)
	}
	ms, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(ms) != 2 || !strings.HasSuffix(ms[0], "toolu_next.json") {
		t.Fatalf("markers %v", ms)
	}
	rep := must(e.store.Fsck(e.ctx))(t)
	if len(rep.Problems) != 0 {
		t.Fatalf("fsck: %+v", rep.Problems)
	}
}

// TestPendingExecStaleAfterSettled: a Post cut short after its lines were
// written, before its marker went, leaves a marker of a recorded call;
// when it goes stale it writes no "interrupted" line, which would stop a
// file revert across a call that has its record.
func TestPendingExecStaleAfterSettled(t *testing.T) {
	e := newSnapEnv(t, "")
	a := AgentSession{Agent: "claude-code", ID: "bash-4"}
	e.hookPair(a, func(s *Session) { must(s.Append(e.ctx, Item{Type: User, Text: "run"}))(t) })
	dir := filepath.Join(e.ws.Folder(), "hooks", ImportSessionID(a.Agent, a.ID))
	var kept map[string][]byte
	e.hookPair(a, func(s *Session) {
		must(s.BeginExec(e.ctx, "bash", "toolu_1", "touch x", ""))(t)
		kept = map[string][]byte{}
		for _, n := range []string{"toolu_1.json", "toolu_1.tree"} {
			kept[n] = must(os.ReadFile(filepath.Join(dir, n)))(t)
		}
		e.sh("touch x")
		must(s.SettleChange(e.ctx, "toolu_1"))(t)
	})
	old := time.Now().Add(-25 * time.Hour)
	os.MkdirAll(dir, 0o700)
	for n, b := range kept { // the marker the cut-short Post left
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(filepath.Join(dir, n), old, old)
	}
	e.hookPair(a, func(s *Session) {
		must(s.BeginExec(e.ctx, "bash", "toolu_2", "true > y", ""))(t)
		if k := e.recKinds(s); k != "call,record" {
			t.Fatalf("lines %q", k)
		}
	})
}

// TestBriefExecSettleEndsWithClose: the post-tool hook of a shell command,
// opened Brief as `cairn hook` opens it, writes its call and record lines
// and the close line together, under the one sync, as a file edit's does
// (TestBriefHookPairWritesLittle): its Close has no line left to sync.
func TestBriefExecSettleEndsWithClose(t *testing.T) {
	dir := must(Canonical(t.TempDir()))(t)
	putFile(t, dir, "a.txt", "a0")
	m := vfs.NewMem()
	e := memExecEnv(t, m, dir)
	a := AgentSession{Agent: "claude-code", ID: "bash-brief"}
	brief := SessionOptions{Brief: true}
	e.hookPair(a, func(s *Session) { must(s.Append(e.ctx, Item{Type: User, Text: "run"}))(t) })
	s := must(e.ws.OpenAgent(e.ctx, a, brief, false, 0))(t)
	must(s.BeginExec(e.ctx, "bash", "toolu_1", "echo 1 > a.txt", ""))(t)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	e.sh("echo 1 > a.txt")
	s = must(e.ws.OpenAgent(e.ctx, a, brief, false, 0))(t)
	defer s.Close()
	if ans := must(s.SettleChange(e.ctx, "toolu_1"))(t); ans == nil || ans.Snapshot == nil {
		t.Fatalf("answer %+v", ans)
	}
	// Before Close: what SettleChange wrote, and synced.
	if k := changeKinds(m, e.ws, s.ID()); k != "call,record,close" {
		t.Fatalf("changes journal %q after the post-tool hook, want call,record,close", k)
	}
}
