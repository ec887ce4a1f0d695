package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"cairn/engine"
)

// B4 with real turns: the engine's own turn — a prompt, an assistant item
// and a tool result appended to a session, then EndTurn with the runtime's
// spend (a trail line, a usage line, the journals synced, the record
// replaced) — against one write and fsync of the turn's three items.
func init() { register(Case{Name: "B4", Run: runB4Turn}) }

func runB4Turn(env *Env) ([]Row, error) {
	n := 200
	if env.Quick {
		n = 50
	}
	const warm = 5
	turns := b4Turns(n + warm)
	home := filepath.Join(env.Dir, "turn-home")
	project := filepath.Join(env.Dir, "turn-project")
	if err := os.MkdirAll(project, 0o700); err != nil {
		return nil, err
	}
	store, err := engine.Open(home)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	ws, err := store.Workspace(project)
	if err != nil {
		return nil, err
	}
	sess := ws.Create(engine.SessionOptions{})
	defer sess.Close()
	floor, err := os.OpenFile(filepath.Join(env.Dir, "turn-floor.jsonl"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer floor.Close()
	ctx := context.Background()
	types := map[string]engine.ItemType{"user": engine.User, "assistant": engine.Assistant, "tool_result": engine.ToolResult}

	var cairnMS, floorMS []float64
	bytes := 0
	peak, err := peakHeap(func() error {
		for i, t := range turns {
			var floorLine []byte
			for _, it := range t {
				l, err := b4Line(it)
				if err != nil {
					return err
				}
				floorLine = append(floorLine, l...)
			}
			cairn := func() (float64, error) {
				return b4Timed(func() error {
					for _, it := range t {
						if _, err := sess.Append(ctx, engine.Item{Type: types[it.Type], Text: it.Text}); err != nil {
							return err
						}
					}
					return sess.EndTurn(ctx, engine.Turn{Model: "bench-model", Spend: engine.Spend{InputTokens: 1200, OutputTokens: 300, CostUSD: 0.004},
						Labels: []string{"prompt", "tool"}, Gates: []string{"planner"}})
				})
			}
			anchor := func() (float64, error) {
				return b4Timed(func() error {
					if _, err := floor.Write(floorLine); err != nil {
						return err
					}
					return floor.Sync()
				})
			}
			var c, f float64
			var err error
			if i%2 == 0 {
				if c, err = cairn(); err == nil {
					f, err = anchor()
				}
			} else {
				if f, err = anchor(); err == nil {
					c, err = cairn()
				}
			}
			if err != nil {
				return err
			}
			if i >= warm {
				cairnMS, floorMS = append(cairnMS, c), append(floorMS, f)
				bytes += len(floorLine)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	size := fmt.Sprintf("%d engine turns (3 items, a trail line, a usage line), %.1f KB/turn", n, float64(bytes)/float64(n)/1000)
	return []Row{row("B4", size, b4Median(cairnMS), "floor: one write+fsync of the items", b4Median(floorMS), "<=1.3",
		func(r float64) bool { return r <= 1.3 }, peak)}, nil
}
