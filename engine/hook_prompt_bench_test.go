package engine

import (
	"context"
	"fmt"
	"testing"

	"cairn/internal/vfs"
)

// BenchmarkIndexedState is a prompt hook's open of a long session from
// its index: 5,000 items, one prompt in ten (their texts kept in the
// index), the index read and turned into the session's state.
func BenchmarkIndexedState(b *testing.B) {
	ctx := context.Background()
	st, err := OpenFS(vfs.NewMem(), "/mem")
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ws, err := st.Workspace(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	a := AgentSession{Agent: "claude-code", ID: "bench-index"}
	id := ImportSessionID(a.Agent, a.ID)
	opts := SessionOptions{Brief: true}
	if _, err := ws.RecordAgentPrompt(ctx, a, opts, 0, "first", "", nil); err != nil {
		b.Fatal(err)
	}
	s, err := ws.OpenAgent(ctx, a, SessionOptions{}, false, 0)
	if err != nil {
		b.Fatal(err)
	}
	for i := range 5000 {
		it := Item{Type: Assistant, Text: fmt.Sprint("an answer ", i)}
		if i%10 == 0 {
			it = Item{Type: User, Text: fmt.Sprint("a prompt of some length, number ", i)}
		}
		if _, err := s.Append(ctx, it); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	if _, err := ws.RecordAgentPrompt(ctx, a, opts, 0, "second", "", nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, st := ws.indexedState(ctx, id); st == nil {
			b.Fatal("no index")
		}
	}
}
