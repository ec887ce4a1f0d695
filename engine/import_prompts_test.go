package engine

import (
	"testing"
	"time"

	"cairn/engine/internal/hookrec"
)

// TestImportFindsHookPrompts: an import into a session the hooks made
// takes a prompt the hooks recorded for its transcript line: by the
// agent's prompt id even when the texts differ (a slash command the
// transcript expands), else by the same text within two minutes, the
// nearest first; a prompt further away in time is another prompt.
func TestImportFindsHookPrompts(t *testing.T) {
	e := newSnapEnv(t, "")
	a := AgentSession{Agent: "claude-code", ID: "imp-1"}
	var byID, first, second Item
	e.hookPair(a, func(s *Session) {
		byID = must(s.appendPrompt(e.ctx, "/review", "p-1"))(t)
		if again := must(s.appendPrompt(e.ctx, "/review", "p-1"))(t); again.ID != byID.ID {
			t.Fatalf("a hook run twice added the prompt twice: %s, %s", again.ID, byID.ID)
		}
		first = must(s.Append(e.ctx, Item{Type: User, Text: "continue"}))(t)
		second = must(s.Append(e.ctx, Item{Type: User, Text: "continue"}))(t)
	})
	at := first.At.Time
	src := &ImportSource{Agent: a.Agent, SourceID: a.ID, Path: "/t/imp-1.jsonl", Offset: 10, Dir: e.dir, Items: []ImportItem{
		{Key: "u1", Type: User, Text: "<command-name>/review</command-name>", PromptID: "p-1", At: at},
		{Key: "a1", ParentKey: "u1", Type: Assistant, Text: "reviewed", At: at},
		// Each at its hook prompt's time: the hooks' clock ran between
		// them, and the nearest is the one meant.
		{Key: "u2", ParentKey: "a1", Type: User, Text: "continue\n[image]", PromptText: "continue", At: first.At.Time},
		{Key: "u3", ParentKey: "u2", Type: User, Text: "continue", At: second.At.Time},
		{Key: "a3", ParentKey: "u3", Type: Assistant, Text: "going on", At: second.At.Time.Add(time.Second)},
		{Key: "u4", ParentKey: "a3", Type: User, Text: "continue", At: at.Add(time.Hour)},
	}}
	res := must(e.ws.Import(e.ctx, src))(t)
	if res.Present != 3 || res.Items != 3 {
		t.Fatalf("import %+v, want 3 present (the prompts) and 3 added", res)
	}
	s := must(e.ws.OpenAgent(e.ctx, a, SessionOptions{}, false, 0))(t)
	defer s.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	reviewed, going := s.st.Item(hookrec.ItemID(s.ID(), "a1")), s.st.Item(hookrec.ItemID(s.ID(), "a3"))
	if reviewed == nil || reviewed.Parent != byID.ID || going == nil || going.Parent != second.ID {
		t.Fatalf("answers not under the hooks' prompts: %+v %+v", reviewed, going)
	}
	if s.st.Item(hookrec.ItemID(s.ID(), "u4")) == nil {
		t.Fatal("a prompt an hour later was taken for a hook's")
	}
}

// TestImportFindsHookPromptSpacedApart: a prompt the hook got with space
// around it (a trailing newline) is found for its transcript line without
// it, as the prompt hook's catch-up takes them for one prompt
// (cli/hookcmd/prompt.go): the import adds the answer, not the prompt again.
func TestImportFindsHookPromptSpacedApart(t *testing.T) {
	e := newSnapEnv(t, "")
	a := AgentSession{Agent: "claude-code", ID: "imp-2"}
	var p Item
	e.hookPair(a, func(s *Session) { p = must(s.appendPrompt(e.ctx, "fix it\n", ""))(t) })
	src := &ImportSource{Agent: a.Agent, SourceID: a.ID, Path: "/t/imp-2.jsonl", Offset: 10, Dir: e.dir, Items: []ImportItem{
		{Key: "u1", Type: User, Text: "fix it", At: p.At.Time},
		{Key: "a1", ParentKey: "u1", Type: Assistant, Text: "fixed", At: p.At.Time.Add(time.Second)},
	}}
	if res := must(e.ws.Import(e.ctx, src))(t); res.Present != 1 || res.Items != 1 {
		t.Fatalf("import %+v, want the prompt present and the answer added", res)
	}
}
