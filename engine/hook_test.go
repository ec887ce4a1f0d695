package engine

import (
	"errors"
	"os"
	"testing"
	"time"
)

// TestAgentSessionNeverReplaced: an agent's session id is not random, so
// a second process may try to make it after the first did; the journal
// the first wrote must never be replaced (materialize's check), and
// OpenAgent then opens it.
func TestAgentSessionNeverReplaced(t *testing.T) {
	e := newSnapEnv(t, "")
	a := AgentSession{Agent: "claude-code", ID: "abc", Transcript: "/t/abc.jsonl"}
	s := must(e.ws.OpenAgent(e.ctx, a, SessionOptions{}, true, 0))(t)
	if s.ID() != ImportSessionID("claude-code", "abc") {
		t.Fatalf("id %s", s.ID())
	}
	must(s.Append(e.ctx, Item{Type: User, Text: "first prompt"}))(t)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(e.store.home + "/" + itemsName(e.ws.dir, s.ID()))
	// A racing creator that read "not there" before the first wrote it.
	if _, err := e.ws.createAgent(s.ID(), a, SessionOptions{}); !errors.Is(err, errCreated) {
		t.Fatalf("second create: %v, want errCreated", err)
	}
	after, _ := os.ReadFile(e.store.home + "/" + itemsName(e.ws.dir, s.ID()))
	if string(before) != string(after) || len(before) == 0 {
		t.Fatalf("journal replaced:\n%s\nwas\n%s", after, before)
	}
	s = must(e.ws.OpenAgent(e.ctx, a, SessionOptions{}, true, 0))(t)
	defer s.Close()
	if tr := s.Transcript(); len(tr) != 1 || tr[0].Text != "first prompt" {
		t.Fatalf("transcript %v", tr)
	}
	// A second owner waits, then is busy.
	if _, err := e.ws.OpenAgent(e.ctx, a, SessionOptions{}, true, 20*time.Millisecond); !errors.Is(err, ErrBusy) {
		t.Fatalf("second owner: %v, want ErrBusy", err)
	}
}

// TestPendingChangeSettles: BeginChange and SettleChange on two opens of
// the session (two hook processes): a change line when a file changed,
// none when nothing did, and the marker gone either way.
func TestPendingChangeSettles(t *testing.T) {
	e := newSnapEnv(t, "")
	a := AgentSession{Agent: "codex", ID: "x"}
	e.put("a.txt", "a0")
	open := func() *Session { return must(e.ws.OpenAgent(e.ctx, a, SessionOptions{}, true, 0))(t) }
	s := open()
	must(s.BeginChange(e.ctx, "apply_patch", "call_1", []string{"a.txt", "b.txt"}))(t)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	e.put("a.txt", "a1")
	s = open()
	ans := must(s.SettleChange(e.ctx, "call_1"))(t)
	if ans == nil || ans.Snapshot == nil || len(ans.Files) != 2 {
		t.Fatalf("answer %+v", ans)
	}
	if k := e.kinds(s); k != "change" {
		t.Fatalf("lines %q", k)
	}
	must(s.BeginChange(e.ctx, "apply_patch", "call_2", []string{"a.txt"}))(t)
	if ans := must(s.SettleChange(e.ctx, "call_2"))(t); ans.Snapshot != nil {
		t.Fatalf("a change of nothing took snapshot %v", *ans.Snapshot)
	}
	if ans := must(s.SettleChange(e.ctx, "call_2"))(t); ans != nil {
		t.Fatalf("settled twice: %+v", ans)
	}
	if k := e.kinds(s); k != "change" {
		t.Fatalf("lines %q", k)
	}
	must(s.Undo(e.ctx))(t)
	e.want("a.txt", "a0")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
