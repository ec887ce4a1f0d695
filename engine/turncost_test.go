package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"cairn/engine/internal/history"
	"cairn/internal/vfs"
)

// A turn's cost does not grow with the session: on a resumed session of
// 3,000 items a turn makes exactly the filesystem calls it makes on one of
// 10 (no re-read, re-fold or rewrite of what is on disk).
func TestTurnCallsDoNotGrowWithTheSession(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	filler := strings.Repeat("words of an earlier exchange ", 8)
	resumed := func(n int) *Session {
		s := e.ws.Create(SessionOptions{})
		for i := range n {
			if _, err := s.Append(ctx, Item{Type: User, Text: fmt.Sprint(i, filler)}); err != nil {
				t.Fatal(err)
			}
			if i%50 == 49 || i == n-1 {
				if err := s.EndTurn(ctx, Turn{Model: "m", Spend: Spend{InputTokens: 1}, Labels: []string{"prompt"}}); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		re, err := e.ws.Open(ctx, s.ID(), SessionOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { re.Close() })
		return re
	}
	small, big := resumed(10), resumed(3000)
	ops := []vfs.Op{vfs.OpOpen, vfs.OpCreate, vfs.OpRead, vfs.OpWrite, vfs.OpSync, vfs.OpStat, vfs.OpRename, vfs.OpReadDir}
	turn := func(s *Session, k int) map[vfs.Op]int {
		before := map[vfs.Op]int{}
		for _, op := range ops {
			before[op] = e.faulty.Calls(op)
		}
		for _, it := range []Item{{Type: User, Text: fmt.Sprint("prompt ", k)}, {Type: Assistant, Text: "answer"}, {Type: ToolResult, Text: "result"}} {
			if _, err := s.Append(ctx, it); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.EndTurn(ctx, Turn{Model: "m", Spend: Spend{InputTokens: 9, CostUSD: 0.01}, Labels: []string{"prompt"}}); err != nil {
			t.Fatal(err)
		}
		d := map[vfs.Op]int{}
		for _, op := range ops {
			d[op] = e.faulty.Calls(op) - before[op]
		}
		return d
	}
	for k := range 3 {
		a, b := turn(small, k), turn(big, k)
		for _, op := range ops {
			if a[op] != b[op] {
				t.Fatalf("turn %d: %d %s calls on a session of 10 items, %d on one of 3000", k, a[op], op, b[op])
			}
		}
	}
}

// Adding a prompt to the history reads the history file only when another
// process changed it: not once per prompt.
func TestAddHistoryReadsOnlyAChangedFile(t *testing.T) {
	e := newMemEnv(t)
	for i := range 800 {
		if err := e.store.AddHistory(fmt.Sprintf("prompt %d %s", i, strings.Repeat("x", 200)), "/w"); err != nil {
			t.Fatal(err)
		}
	}
	reads := e.faulty.Calls(vfs.OpRead)
	if err := e.store.AddHistory("one more", "/w"); err != nil {
		t.Fatal(err)
	}
	if n := e.faulty.Calls(vfs.OpRead) - reads; n > 1 { // the writer's look at the last line
		t.Fatalf("adding a prompt made %d reads", n)
	}
	// Another store (another process) adds a prompt: this one sees it.
	other, err := OpenFS(e.mem, "/mem")
	if err != nil {
		t.Fatal(err)
	}
	if err := other.AddHistory("from elsewhere", "/w"); err != nil {
		t.Fatal(err)
	}
	if err := e.store.AddHistory("from elsewhere", "/w"); err != nil {
		t.Fatal(err)
	}
	h := e.store.History()
	if len(h) != 802 && len(h) != 1000 || h[len(h)-1] != "from elsewhere" || h[len(h)-2] != "one more" {
		t.Fatalf("history: %d entries, ending %q", len(h), h[len(h)-3:])
	}
	// The cap still holds.
	for i := range 400 {
		e.store.AddHistory(fmt.Sprint("later ", i), "/w")
	}
	if all := e.store.historyAll(); len(all) > 1100 || e.store.History()[999] != "later 399" {
		t.Fatalf("history holds %d entries", len(all))
	}
}

// historyAll is every entry the file holds, before the cap.
func (s *Store) historyAll() []string { return history.All(s.fsys) }
