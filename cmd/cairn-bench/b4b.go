package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"cairn/engine"
)

// B4b: a turn's cost does not grow with the session. The engine's turn of
// B4 — a prompt, an assistant item and a tool result, then EndTurn with a
// trail line and a usage line, durable — on a session of 100,000 items,
// against the same turn on a session of 10 items. Both sessions are written,
// closed and opened again first, as a resume leaves them; turns alternate
// between them so the machine's drift touches both alike.
func init() { register(Case{Name: "B4b", Run: runB4b}) }

func runB4b(env *Env) ([]Row, error) {
	n := 200
	if env.Quick {
		n = 50
	}
	const warm, short, long = 5, 10, 100_000
	turns := b4Turns(2 * (n + warm))
	store, err := engine.Open(filepath.Join(env.Dir, "home"))
	if err != nil {
		return nil, err
	}
	defer store.Close()
	project := filepath.Join(env.Dir, "project")
	if err := os.MkdirAll(project, 0o700); err != nil {
		return nil, err
	}
	ws, err := store.Workspace(project)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	// prepare writes a session of size items (prompts and answers of about
	// 100 bytes) and opens it again.
	prepare := func(size int) (*engine.Session, error) {
		s := ws.Create(engine.SessionOptions{})
		for i := range size {
			typ := engine.User
			if i%2 == 1 {
				typ = engine.Assistant
			}
			if _, err := s.Append(ctx, engine.Item{Type: typ, Text: fmt.Sprintf("item %d of a long session, about a hundred bytes of text to stand for a prompt", i)}); err != nil {
				return nil, err
			}
			if i%100 == 99 {
				if err := s.EndTurn(ctx, engine.Turn{Model: "bench-model", Labels: []string{"prompt"}}); err != nil {
					return nil, err
				}
			}
		}
		if err := s.Close(); err != nil {
			return nil, err
		}
		return ws.Open(ctx, s.ID(), engine.SessionOptions{})
	}
	small, err := prepare(short)
	if err != nil {
		return nil, err
	}
	defer small.Close()
	big, err := prepare(long)
	if err != nil {
		return nil, err
	}
	defer big.Close()
	types := map[string]engine.ItemType{"user": engine.User, "assistant": engine.Assistant, "tool_result": engine.ToolResult}
	turn := func(s *engine.Session, t []b4Item) (float64, error) {
		return b4Timed(func() error {
			for _, it := range t {
				if _, err := s.Append(ctx, engine.Item{Type: types[it.Type], Text: it.Text}); err != nil {
					return err
				}
			}
			return s.EndTurn(ctx, engine.Turn{Model: "bench-model", Spend: engine.Spend{InputTokens: 1200, OutputTokens: 300, CostUSD: 0.004},
				Labels: []string{"prompt", "tool"}, Gates: []string{"planner"}})
		})
	}
	var longMS, shortMS []float64
	peak, err := peakHeap(func() error {
		for i := range n + warm {
			first, second := big, small
			if i%2 == 1 {
				first, second = small, big
			}
			a, err := turn(first, turns[2*i])
			if err != nil {
				return err
			}
			b, err := turn(second, turns[2*i+1])
			if err != nil {
				return err
			}
			if first == small {
				a, b = b, a
			}
			if i >= warm {
				longMS, shortMS = append(longMS, a), append(shortMS, b)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	size := fmt.Sprintf("%d engine turns on a session of %d items", n, long)
	return []Row{row("B4b", size, b4Median(longMS), fmt.Sprintf("the same turns on a session of %d items", short), b4Median(shortMS), "<=1.2",
		func(r float64) bool { return r <= 1.2 }, peak)}, nil
}
