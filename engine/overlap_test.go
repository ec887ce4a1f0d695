package engine

import (
	"testing"
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
	e.hookPair(a, func(s *Session) { must(s.BeginChange(e.ctx, "edit", "te", []string{e.path("e.txt")}))(t) })
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
