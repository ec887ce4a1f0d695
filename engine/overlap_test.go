package engine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cairn/engine/internal/changes"
)

// TestOverlapTwoShellCommandsRevert: two shell commands whose hooks
// overlap (Pre A, Pre B, both run, Post A, Post B) each see the other's
// changes; file revert to the prompt before them puts back all six files.
func TestOverlapTwoShellCommandsRevert(t *testing.T) {
	e := newSnapEnv(t, "")
	a := AgentSession{Agent: "claude-code", ID: "par-1"}
	for _, f := range []string{"a/1", "a/2", "a/3", "b/1", "b/2", "b/3"} {
		e.put(f, f+"\n")
	}
	var prompt Item
	e.hookPair(a, func(s *Session) { prompt = must(s.Append(e.ctx, Item{Type: User, Text: "build both"}))(t) })
	lineA, lineB := "for f in a/*; do echo x >> $f; done", "for f in b/*; do echo y >> $f; done"
	e.hookPair(a, func(s *Session) { must(s.BeginExec(e.ctx, "bash", "ta", lineA, ""))(t) })
	e.hookPair(a, func(s *Session) { must(s.BeginExec(e.ctx, "bash", "tb", lineB, ""))(t) })
	e.sh(lineA)
	e.sh(lineB)
	e.hookPair(a, func(s *Session) { must(s.SettleChange(e.ctx, "ta"))(t) })
	e.hookPair(a, func(s *Session) { must(s.SettleChange(e.ctx, "tb"))(t) })
	e.hookPair(a, func(s *Session) {
		res := must(s.Revert(e.ctx, prompt.ID, RevertFiles))(t)
		if res.Files.Replace != 6 {
			t.Fatalf("revert %+v", res.Files)
		}
	})
	for _, f := range []string{"a/1", "a/2", "a/3", "b/1", "b/2", "b/3"} {
		e.want(f, f+"\n")
	}
}

// TestOverlapEditDuringShellCommand: an Edit whose hooks run while a
// whole-workspace shell command's are pending: both records hold the
// edited file. Undo of the edit puts back its own pre-image, and file
// revert to the prompt puts back every file as it was.
func TestOverlapEditDuringShellCommand(t *testing.T) {
	e := newSnapEnv(t, "")
	a := AgentSession{Agent: "claude-code", ID: "par-2"}
	e.put("e.txt", "e0")
	e.put("sub/s.txt", "s0")
	var prompt Item
	e.hookPair(a, func(s *Session) { prompt = must(s.Append(e.ctx, Item{Type: User, Text: "go"}))(t) })
	line := "for f in sub/*; do echo more >> $f; done"
	e.hookPair(a, func(s *Session) { must(s.BeginExec(e.ctx, "bash", "tb", line, ""))(t) })
	e.put("sub/s.txt", "s1") // the command, half way
	e.hookPair(a, func(s *Session) { must(s.beginHookChange(e.ctx, "edit", "te", []string{e.path("e.txt")}))(t) })
	e.put("e.txt", "e1")
	e.hookPair(a, func(s *Session) { must(s.SettleChange(e.ctx, "te"))(t) })
	e.put("sub/s.txt", "s2")
	e.hookPair(a, func(s *Session) { must(s.SettleChange(e.ctx, "tb"))(t) })
	e.hookPair(a, func(s *Session) {
		res := must(s.Undo(e.ctx))(t)
		if len(res.Steps) != 1 {
			t.Fatalf("undo %+v", res)
		}
	})
	e.want("e.txt", "e0")
	e.want("sub/s.txt", "s2")
	e.hookPair(a, func(s *Session) { must(s.Revert(e.ctx, prompt.ID, RevertFiles))(t) })
	e.want("e.txt", "e0")
	e.want("sub/s.txt", "s0")
}

// overlapLines is the overlap lines of s's changes journal.
func (e *snapEnv) overlapLines(s *Session) []map[string]any {
	var out []map[string]any
	for _, l := range e.lines(s) {
		if l["kind"] == changes.KindOverlap {
			out = append(out, l)
		}
	}
	return out
}

// TestOverlapDisjointPathsKeepTheirRecords: two shell commands that run
// at the same time naming disjoint literal paths form no unit: each record
// holds its own file, no overlap line is written, and a revert to a point
// between them (the first began in an earlier turn) takes back only the
// second.
func TestOverlapDisjointPathsKeepTheirRecords(t *testing.T) {
	e := newSnapEnv(t, "")
	a := AgentSession{Agent: "codex", ID: "par-3"}
	e.put("x.txt", "x0")
	e.put("y.txt", "y0")
	var p1, p2 Item
	e.hookPair(a, func(s *Session) { p1 = must(s.Append(e.ctx, Item{Type: User, Text: "one"}))(t) })
	e.hookPair(a, func(s *Session) { must(s.BeginExec(e.ctx, "bash", "tx", "rm -f x.txt", ""))(t) })
	e.hookPair(a, func(s *Session) { p2 = must(s.Append(e.ctx, Item{Type: User, Text: "two"}))(t) })
	e.hookPair(a, func(s *Session) { must(s.BeginExec(e.ctx, "bash", "ty", "touch y.txt", ""))(t) })
	e.put("x.txt", "x1")
	e.put("y.txt", "y1")
	e.hookPair(a, func(s *Session) {
		ans := must(s.SettleChange(e.ctx, "tx"))(t)
		if len(ans.Files) != 1 {
			t.Fatalf("x's record: %+v", ans)
		}
	})
	e.hookPair(a, func(s *Session) {
		ans := must(s.SettleChange(e.ctx, "ty"))(t)
		if len(ans.Files) != 1 {
			t.Fatalf("y's record: %+v", ans)
		}
		if ls := e.overlapLines(s); len(ls) != 0 {
			t.Fatalf("overlap lines %v", ls)
		}
		must(s.Revert(e.ctx, p2.ID, RevertFiles))(t)
	})
	e.want("x.txt", "x1")
	e.want("y.txt", "y0")
	e.hookPair(a, func(s *Session) { must(s.Revert(e.ctx, p1.ID, RevertFiles))(t) })
	e.want("x.txt", "x0")
}

// TestOverlapUnitAcrossPrompt: an agent's two whole-workspace commands
// form a unit, the first begun before a prompt and the second after it,
// the second ending first, and no transcript tells where their calls are:
// each is placed where it began. A revert to the second prompt refuses
// the unit's files (what they held there, while the first ran, is not
// recorded) instead of taking the first command's changes back too; a
// revert to the first prompt takes back the whole unit.
func TestOverlapUnitAcrossPrompt(t *testing.T) {
	e := newSnapEnv(t, "")
	a := AgentSession{Agent: "claude-code", ID: "par-6"}
	e.put("a.txt", "a0")
	e.put("b.txt", "b0")
	var p1, p2 Item
	e.hookPair(a, func(s *Session) { p1 = must(s.Append(e.ctx, Item{Type: User, Text: "one"}))(t) })
	e.hookPair(a, func(s *Session) { must(s.BeginExec(e.ctx, "bash", "ta", "make a", ""))(t) })
	e.put("a.txt", "a1")
	e.hookPair(a, func(s *Session) { p2 = must(s.Append(e.ctx, Item{Type: User, Text: "two"}))(t) })
	e.hookPair(a, func(s *Session) { must(s.BeginExec(e.ctx, "bash", "tb", "make b", ""))(t) })
	e.put("b.txt", "b1")
	e.hookPair(a, func(s *Session) { must(s.SettleChange(e.ctx, "tb"))(t) })
	e.hookPair(a, func(s *Session) { must(s.SettleChange(e.ctx, "ta"))(t) })
	e.hookPair(a, func(s *Session) {
		if ls := e.overlapLines(s); len(ls) != 1 {
			t.Fatalf("overlap lines %v", ls)
		}
		_, err := s.Revert(e.ctx, p2.ID, RevertFiles)
		var rc *RevertConflictError
		if !errors.As(err, &rc) || len(rc.Files.Conflicts) == 0 {
			t.Fatalf("revert to the second prompt: %v", err)
		}
		for _, c := range rc.Files.Conflicts {
			if c.Kind != changes.ConflictInterleaved {
				t.Errorf("conflict %+v", c)
			}
		}
	})
	e.want("a.txt", "a1")
	e.want("b.txt", "b1")
	e.hookPair(a, func(s *Session) { must(s.Revert(e.ctx, p1.ID, RevertFiles))(t) })
	e.want("a.txt", "a0")
	e.want("b.txt", "b0")
}

// TestOverlapRevertWaitsForPendingCalls: while an agent's call has not
// reached its post-tool hook, file revert and unrevert refuse (what the
// call changes meanwhile would be its own); once it settles, the revert
// runs. A marker a day old (its agent died) does not hold it up.
func TestOverlapRevertWaitsForPendingCalls(t *testing.T) {
	e := newSnapEnv(t, "")
	a := AgentSession{Agent: "claude-code", ID: "par-4"}
	e.put("f.txt", "f0")
	var p Item
	e.hookPair(a, func(s *Session) { p = must(s.Append(e.ctx, Item{Type: User, Text: "go"}))(t) })
	e.hookPair(a, func(s *Session) { must(s.beginHookChange(e.ctx, "write", "t1", []string{e.path("f.txt")}))(t) })
	e.put("f.txt", "f1")
	e.hookPair(a, func(s *Session) { must(s.SettleChange(e.ctx, "t1"))(t) })
	e.hookPair(a, func(s *Session) { must(s.BeginExec(e.ctx, "bash", "t2", "make", ""))(t) })
	e.hookPair(a, func(s *Session) {
		_, err := s.Revert(e.ctx, p.ID, RevertFiles)
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "still running") {
			t.Fatalf("revert while a call is pending: %v", err)
		}
	})
	e.want("f.txt", "f1")
	// The agent died: its marker is a day old.
	old := time.Now().Add(-25 * time.Hour)
	name := filepath.Join(e.ws.Folder(), "hooks", ImportSessionID(a.Agent, a.ID), "t2.json")
	if err := os.Chtimes(name, old, old); err != nil {
		t.Fatal(err)
	}
	e.hookPair(a, func(s *Session) { must(s.Revert(e.ctx, p.ID, RevertFiles))(t) })
	e.want("f.txt", "f0")
}

// TestOverlapOwnCallJoins: a tool this process runs while an agent's
// whole-workspace command is pending (an exec line, a file tool) joins
// the command's unit: the overlap line names all three, and a revert to
// the prompt puts every file back.
func TestOverlapOwnCallJoins(t *testing.T) {
	e := newSnapEnv(t, "")
	a := AgentSession{Agent: "claude-code", ID: "par-5"}
	e.put("a.txt", "a0")
	e.put("b.txt", "b0")
	s := must(e.ws.OpenAgent(e.ctx, a, SessionOptions{}, true, 0))(t)
	defer s.Close()
	p := must(s.Append(e.ctx, Item{Type: User, Text: "go"}))(t)
	pe := must(s.BeginExec(e.ctx, "bash", "t1", "make", ""))(t)
	e.put("a.txt", "a1") // make, under way
	x := must(s.Exec(e.ctx, "echo b1 > b.txt", ExecOptions{}))(t)
	w := must(s.ToolWrite(e.ctx, e.path("a.txt"), []byte("a2")))(t)
	e.put("b.txt", "b2") // make again
	must(s.SettleChange(e.ctx, "t1"))(t)
	ls := e.overlapLines(s)
	if len(ls) != 1 {
		t.Fatalf("overlap lines %v", ls)
	}
	var ids []string
	for _, m := range ls[0]["members"].([]any) {
		ids = append(ids, m.(map[string]any)["id"].(string))
	}
	if strings.Join(ids, " ") != strings.Join([]string{pe.ID, *x.Snapshot, *w.Snapshot}, " ") {
		t.Fatalf("members %v, want %s %s %s", ids, pe.ID, *x.Snapshot, *w.Snapshot)
	}
	if ms, _ := filepath.Glob(filepath.Join(e.ws.Folder(), "hooks", s.ID(), "*")); len(ms) != 0 {
		t.Fatalf("markers left: %v", ms)
	}
	must(s.Revert(e.ctx, p.ID, RevertFiles))(t)
	e.want("a.txt", "a0")
	e.want("b.txt", "b0")
}
