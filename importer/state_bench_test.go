package importer

import (
	"fmt"
	"testing"

	"cairn/engine"
)

// benchState is the kept form of a long Claude Code session's read state,
// about the size of cairn-bench B9's (8,000 tips, 2,000 aliases, 600
// messages' spend), as its hook reads it at every prompt.
func benchState() []byte {
	st := &State{V: 1, Agent: AgentClaudeCode, Path: "/t.jsonl", Offset: 30 << 20, Sum: "x", CC: newCCState(), Aliases: map[string]string{}}
	for i := range 8000 {
		u := fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
		st.CC.Tip.set(u, u)
		if i%4 == 0 {
			st.CC.Tip.set(u, u+"#1")
		}
	}
	for i := range 2000 {
		st.Aliases[fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)] = fmt.Sprintf("i-%016x", i)
	}
	for i := range 600 {
		st.CC.Usage[fmt.Sprintf("msg_%024x", i)] = engine.Spend{InputTokens: int64(i) * 1000, OutputTokens: int64(i)}
	}
	return st.Marshal()
}

func BenchmarkParseState(b *testing.B) {
	kept := benchState()
	b.SetBytes(int64(len(kept)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseState(kept); err != nil {
			b.Fatal(err)
		}
	}
}

// Parsing a kept read state costs a fixed number of allocations, whatever
// the number of its entries: a prompt hook parses it at every prompt, and
// a long session's holds thousands (one string for the entries' text,
// each field a part of it; the maps made at their size).
func TestParseStateAllocsDoNotGrow(t *testing.T) {
	allocs := func(n int) float64 {
		st := &State{V: 1, Agent: AgentClaudeCode, Path: "/t.jsonl", Offset: 1, Sum: "x", CC: newCCState(), Aliases: map[string]string{}}
		for i := range n {
			u := fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
			st.CC.Tip.set(u, u+"#1")
			if i%4 == 0 {
				st.Aliases[u] = fmt.Sprintf("i-%016x", i)
				st.CC.Usage["msg_"+u] = engine.Spend{InputTokens: int64(i), OutputTokens: 1}
			}
		}
		kept := append(st.Marshal(), st.MarshalBatch()...) // two batches
		return testing.AllocsPerRun(5, func() {
			got, err := ParseState(kept)
			if err != nil || len(got.CC.Tip.all()) != n {
				t.Fatalf("%d entries: %v", n, err)
			}
		})
	}
	small, large := allocs(500), allocs(5000)
	if large-small > 20 {
		t.Fatalf("parsing a read state of 500 tips takes %.0f allocations, of 5,000 tips %.0f", small, large)
	}
}
