package scope

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// watchSet finds the watched folders at or under a path as a scan of all
// of them would, over random adds and removes (the names include "a-b"
// and "a.c", which sort between "a" and "a/..."), and forgets the folders
// that lead to none.
func TestWatchSetRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	names := []string{"a", "a-b", "a.c", "b"}
	pick := func() string {
		p := names[r.IntN(len(names))]
		for range r.IntN(4) {
			p += "/" + names[r.IntN(len(names))]
		}
		return p
	}
	s := newWatchSet()
	s.add("")
	plain := map[string]bool{"": true}
	for step := range 3000 {
		p := pick()
		switch r.IntN(3) {
		case 0, 1:
			s.add(p)
			plain[p] = true
		case 2:
			// As the watcher does on a removal: everything at or under.
			for _, q := range s.atOrUnder(p) {
				s.remove(q)
			}
			for q := range plain {
				if q == p || strings.HasPrefix(q, p+"/") {
					delete(plain, q)
				}
			}
		}
		q := pick()
		if step%10 == 0 {
			q = ""
		}
		got := s.atOrUnder(q)
		var want []string
		for x := range plain {
			if x == q || q == "" || strings.HasPrefix(x, q+"/") {
				want = append(want, x)
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("step %d: at or under %q: %v, want %v", step, q, got, want)
		}
		for x := range plain {
			if !s.has(x) {
				t.Fatalf("step %d: %s not watched", step, x)
			}
		}
		if len(s.on) != len(plain) {
			t.Fatalf("step %d: %d watched, want %d", step, len(s.on), len(plain))
		}
	}
	for _, q := range s.atOrUnder("") {
		s.remove(q)
	}
	if len(s.on) != 0 || len(s.kids) != 0 {
		t.Fatalf("all removed, yet %d watched and %s left in the index", len(s.on), fmt.Sprint(s.kids))
	}
}
