package ids

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestWordLists(t *testing.T) {
	for name, list := range map[string][]string{"adjectives": adjectives(), "animals": animals()} {
		if len(list) < 200 {
			t.Errorf("%s: only %d words", name, len(list))
		}
		seen := map[string]bool{}
		for _, w := range list {
			if seen[w] {
				t.Errorf("%s: %q twice", name, w)
			}
			seen[w] = true
			if len(w) == 0 || len(w) > 12 || strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") != "" {
				t.Errorf("%s: %q is not 1-12 lowercase letters", name, w)
			}
		}
	}
}

func TestWordIDShape(t *testing.T) {
	adj := map[string]bool{}
	for _, w := range adjectives() {
		adj[w] = true
	}
	ani := map[string]bool{}
	for _, w := range animals() {
		ani[w] = true
	}
	r := rand.New(rand.NewPCG(7, 7))
	for range 1000 {
		id := WordID(r, nil)
		p := strings.Split(id, "-")
		if len(p) != 3 || !adj[p[0]] || !adj[p[1]] || p[0] == p[1] || !ani[p[2]] || !Valid(id) {
			t.Fatalf("bad word id %q", id)
		}
	}
	if id := WordID(nil, nil); !Valid(id) || strings.Count(id, "-") != 2 {
		t.Fatalf("nil source: %q", id)
	}
}

func TestWordIDDeterministicAndCollisions(t *testing.T) {
	a := WordID(rand.New(rand.NewPCG(3, 4)), nil)
	if b := WordID(rand.New(rand.NewPCG(3, 4)), nil); a != b {
		t.Fatalf("same seed gave %q and %q", a, b)
	}
	// Every draw of a seeded source collides: suffixes count up.
	m := map[string]bool{a: true}
	taken := func(s string) bool { return m[s] }
	for n, want := range []string{a + "-2", a + "-3"} {
		id := WordID(rand.New(rand.NewPCG(3, 4)), taken)
		if id != want {
			t.Fatalf("collision %d: got %q, want %q", n, id, want)
		}
		m[id] = true
	}
	// Many draws from one source: all distinct, all valid, all fit.
	r := rand.New(rand.NewPCG(9, 9))
	for range 5000 {
		id := WordID(r, taken)
		if m[id] || !Valid(id) || len(id) > MaxLen {
			t.Fatalf("draw %q", id)
		}
		m[id] = true
	}
}
