package engine

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"
)

// Forks made at once, by goroutines on one Store and on two Stores of the
// same state folder (two processes' worth of file descriptors), get the
// numbers 1..n, each once.
func TestForkNumbersUniqueUnderConcurrency(t *testing.T) {
	for _, stores := range []int{1, 2} {
		t.Run(fmt.Sprintf("%d stores", stores), func(t *testing.T) {
			ctx := context.Background()
			s1, ws1 := testStore(t)
			p := ws1.Create(SessionOptions{})
			if _, err := p.Append(ctx, Item{Type: User, Text: "parallel fork parent"}); err != nil {
				t.Fatal(err)
			}
			p.Close()
			wss := []*Workspace{ws1}
			if stores == 2 {
				s2, err := Open(s1.Home())
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { s2.Close() })
				ws2, err := s2.Workspace(ws1.Path())
				if err != nil {
					t.Fatal(err)
				}
				wss = append(wss, ws2)
			}
			const n = 8
			var wg sync.WaitGroup
			titles := make([]string, n)
			nums := make([]int, n)
			errs := make([]error, n)
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					res, err := wss[i%len(wss)].Fork(ctx, p.ID(), "")
					if err != nil {
						errs[i] = err
						return
					}
					titles[i], nums[i] = res.Title, res.ForkOf.N
				}()
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			sort.Ints(nums)
			for i, got := range nums {
				if got != i+1 {
					t.Fatalf("fork numbers %v, want 1..%d each once (titles %q)", nums, n, titles)
				}
			}
			seen := map[string]bool{}
			l, _, _ := ws1.List(ctx)
			for _, e := range l {
				if e.ForkOf == p.ID() {
					if seen[e.Title] {
						t.Fatalf("two forks titled %q", e.Title)
					}
					seen[e.Title] = true
				}
			}
			if len(seen) != n {
				t.Fatalf("%d forks listed, want %d", len(seen), n)
			}
		})
	}
}

// A fork deleted from the middle does not make the next fork reuse a
// title a session still has.
func TestForkNumberSkipsTakenTitle(t *testing.T) {
	ctx := context.Background()
	ws, parent, m := convo(t)
	var ids []string
	for range 3 {
		res, err := parent.Fork(ctx, m["a1"].ID)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.Session)
	}
	ws.dropUnmade(ids[0]) // fork #1 gone: two forks left, #2 and #3
	ws.s.fsys.Remove(recordName(ws.dir, ids[0]))
	res, err := parent.Fork(ctx, m["a1"].ID)
	if err != nil {
		t.Fatal(err)
	}
	if res.ForkOf.N != 4 || res.Title != "first prompt (fork #4)" {
		t.Fatalf("next fork %q n=%d, want #4", res.Title, res.ForkOf.N)
	}
}
