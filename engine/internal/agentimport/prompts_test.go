package agentimport

import (
	"testing"
	"time"

	"cairn/engine/internal/convlog"
	"cairn/engine/internal/hookrec"
	"cairn/internal/timefmt"
)

// The same prompt text twice ("continue"), the hooks' two prompts and the
// transcript's two lines: the first line is matched to the first prompt
// even when, in time, it is nearer the second (the turn between them was
// short, the first hook slow to end). The second prompt was recorded
// after the first turn's answers, which the transcript has after its
// first line: that line cannot be the second prompt. Matching by the
// nearest time alone crossed them, and an import put the second turn's
// answer under the first prompt (cli TestHookRepeatedPromptKeepsItsTurn,
// seen failing under load).
func TestHookPromptsKeepTheirOrder(t *testing.T) {
	const session = "s-1"
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	st := convlog.NewState(session, "/w")
	add := func(id string, typ convlog.ItemType, text string, at time.Time) {
		st.SetItem(&convlog.Item{ID: id, Type: typ, Text: text, At: timefmt.Mk(at)})
		st.Order = append(st.Order, id)
	}
	key := func(k string) string { return hookrec.ItemID(session, k) }
	// The hooks' first prompt, the first turn brought in by the second
	// prompt's hook, then that prompt.
	add("p1", convlog.User, "continue", t0)
	add(key("a1"), convlog.Assistant, "first turn done", t0.Add(2100*time.Millisecond))
	add("p2", convlog.User, "continue", t0.Add(2500*time.Millisecond))
	src := &Source{Items: []Item{
		{Key: "u1", Type: convlog.User, Text: "continue", At: t0.Add(2 * time.Second)},
		{Key: "a1", ParentKey: "u1", Type: convlog.Assistant, Text: "first turn done", At: t0.Add(2100 * time.Millisecond)},
		{Key: "u2", ParentKey: "a1", Type: convlog.User, Text: "continue", At: t0.Add(2600 * time.Millisecond)},
		{Key: "a2", ParentKey: "u2", Type: convlog.Assistant, Text: "second turn done", At: t0.Add(2700 * time.Millisecond)},
	}}
	got := hookPrompts(st, session, src)
	if got["u1"] != "p1" || got["u2"] != "p2" || len(got) != 2 {
		t.Fatalf("matches %v, want u1 to p1 and u2 to p2", got)
	}
}
