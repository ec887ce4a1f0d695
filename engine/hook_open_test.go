package engine

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"cairn/engine/internal/hookrec"
	"cairn/journal"
)

// The newest item read from the end of the items journal is the one a
// whole fold ends with, whatever the lines around it: long items whose
// lines span several reads, other kinds after the item, a torn last line.
func TestNewestItemFromTheEnd(t *testing.T) {
	e := newSnapEnv(t, "")
	a := AgentSession{Agent: "claude-code", ID: "tail"}
	s := must(e.ws.OpenAgent(e.ctx, a, SessionOptions{}, true, 0))(t)
	id := s.ID()
	if got := must(e.ws.newestItemOf(id))(t); got != "" {
		t.Fatalf("a session of no items: newest %q", got)
	}
	check := func(what string) {
		t.Helper()
		st, err := e.ws.fold(e.ctx, id, foldOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := st.Order[len(st.Order)-1]
		if got := must(e.ws.newestItemOf(id))(t); got != want {
			t.Fatalf("%s: newest from the end %q, the fold's %q", what, got, want)
		}
	}
	for i, n := range []int{10, 200 << 10, 3 << 10, hookrec.TailChunk - 40, 70 << 10} {
		must(s.Append(e.ctx, Item{Type: User, Text: strings.Repeat("x", n)}))(t)
		must(s.Append(e.ctx, Item{Type: Assistant, Text: strings.Repeat("y", n/2+i)}))(t)
		if err := s.Commit(e.ctx); err != nil {
			t.Fatal(err)
		}
		check("after a turn")
	}
	if err := s.EndTurn(e.ctx, Turn{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	check("with turn, open and close lines after the item")
	// A torn last line (a writer killed mid-line) is not an item.
	name := e.store.home + "/" + itemsName(e.ws.dir, id)
	f, err := os.OpenFile(name, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"v": 1, "kind": "item", "id": "i-torn", "type": "user", "text": "half"})
	f.Write(b[:len(b)-3])
	f.Close()
	check("with a torn last line")
	if _, err := journal.Read(e.store.fsys, itemsName(e.ws.dir, id), func([]byte) error { return nil }); err != nil {
		t.Fatal(err)
	}
}

// A hook pair through the sessions opened for their changes only records
// what a whole open records: the change line names the agent's call and,
// as the newest item, the same item.
func TestAgentChangeNamesWhatAWholeOpenNames(t *testing.T) {
	e := newSnapEnv(t, "")
	e.put("f.txt", "old")
	a := AgentSession{Agent: "codex", ID: "whole"}
	s := must(e.ws.OpenAgent(e.ctx, a, SessionOptions{}, true, 0))(t)
	prompt := must(s.Append(e.ctx, Item{Type: User, Text: "edit f"}))(t)
	id := s.ID()
	s.Close()
	brief := SessionOptions{Brief: true}
	must(e.ws.BeginAgentChange(e.ctx, a, brief, 0, "apply_patch", "call_7", []string{e.path("f.txt")}))(t)
	e.put("f.txt", "new")
	ans := must(e.ws.SettleAgentChange(e.ctx, a, brief, 0, "call_7"))(t)
	if ans == nil || ans.Snapshot == nil {
		t.Fatalf("answer %+v", ans)
	}
	var l struct {
		Kind string `json:"kind"`
		Call string `json:"call"`
		Item string `json:"item"`
	}
	journal.Read(e.store.fsys, changesName(e.ws.dir, id), func(b []byte) error {
		var x struct{ Kind string }
		if json.Unmarshal(b, &x) == nil && x.Kind == "change" {
			json.Unmarshal(b, &l)
		}
		return nil
	})
	if l.Call != agentCallItem(id, "call_7") || l.Item != prompt.ID {
		t.Fatalf("change line names call %q and newest item %q; want %q and %q", l.Call, l.Item, agentCallItem(id, "call_7"), prompt.ID)
	}
	// Settling a call no pre-tool hook began: nothing, the session untouched.
	if ans, err := e.ws.SettleAgentChange(e.ctx, a, brief, 0, "call_8"); ans != nil || err != nil {
		t.Fatalf("settle of nothing: %+v %v", ans, err)
	}
	if ans, err := e.ws.SettleAgentChange(e.ctx, AgentSession{Agent: "codex", ID: "none"}, brief, 0, "call_7"); ans != nil || err != nil {
		t.Fatalf("settle in no session: %+v %v", ans, err)
	}
	s = must(e.ws.OpenAgent(e.ctx, a, SessionOptions{}, false, 0))(t)
	defer s.Close()
	must(s.Undo(e.ctx))(t)
	if b, _ := os.ReadFile(e.path("f.txt")); string(b) != "old" {
		t.Fatalf("undo gave %q", b)
	}
}
