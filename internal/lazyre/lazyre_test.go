package lazyre

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestLazyMatchesAsCompiled(t *testing.T) {
	r := New(`^[a-z]{1,3}-([0-9]+)$`)
	for s, want := range map[string]bool{"ab-12": true, "abcd-1": false, "-1": false, "a-": false} {
		if got := r.MatchString(s); got != want {
			t.Errorf("%q: %v, want %v", s, got, want)
		}
	}
	if m := r.FindAllSubmatch([]byte("xy-42"), -1); len(m) != 1 || string(m[0][1]) != "42" {
		t.Errorf("submatches %q", m)
	}
	if r.String() != `^[a-z]{1,3}-([0-9]+)$` || r.Regexp().NumSubexp() != 1 {
		t.Error("source or compiled form")
	}
}

func TestBadPatternPanicsOnUse(t *testing.T) {
	r := New(`(`)
	defer func() {
		if recover() == nil {
			t.Error("a pattern that does not compile did not panic")
		}
	}()
	r.MatchString("x")
}

// TestSimpleMatchesAsRegexp: the loop that matches the simple forms gives
// the regexp engine's answer, for the forms cairn uses and others near
// them, on many strings made of the characters that matter to each
// (invalid UTF-8 included); forms that are not simple are not taken for so.
func TestSimpleMatchesAsRegexp(t *testing.T) {
	simpleForms := []string{
		`^[A-Za-z0-9_.:/@+-]{1,64}$`, `^[A-Za-z0-9_.-]{1,128}$`, `^[0-9a-z]{1,13}-[0-9a-f]{8}$`, `^0[0-7]{3}$`,
		`^[a-c]*x[b-d]?$`, `^a+b{2,}$`, `^[^ab]{0,3}b$`, `^é[é-ë]{2}$`, `^ab$`,
	}
	notSimple := []string{`^[a-z]{1,3}[a-f]{2}$`, `^[^a]{0,3}b$`, `^(?i)abc$`, `^a|b$`, `abc`, `^a.b$`, `^[a-z]*[0-9]?[a-c]$`, `^(ab)+$`}
	for _, f := range notSimple {
		if parseSimple(f) != nil {
			t.Errorf("%s taken for a simple form", f)
		}
	}
	alphabet := []string{"a", "b", "c", "d", "x", "z", "A", "Z", "0", "7", "8", "9", "f", "g", "-", "_", ".", ":", "/", "@", "+", " ",
		"\n", "é", "ë", "ì", "\xff", "\xc3", "\u0000"}
	r := rand.New(rand.NewPCG(1, 2))
	for _, f := range append(simpleForms, notSimple...) {
		lz, re := New(f), regexp.MustCompile(f)
		if slices.Contains(simpleForms, f) && parseSimple(f) == nil {
			t.Errorf("%s not taken for a simple form", f)
		}
		for range 20000 {
			var b strings.Builder
			for range r.IntN(20) {
				b.WriteString(alphabet[r.IntN(len(alphabet))])
			}
			s := b.String()
			if r.IntN(4) == 0 { // near misses of long names
				s = strings.Repeat("a", 60+r.IntN(72)) + s[:min(len(s), r.IntN(3))]
			}
			if got, want := lz.MatchString(s), re.MatchString(s); got != want {
				t.Fatalf("%s on %q: %v, the regexp says %v", f, s, got, want)
			}
		}
	}
}
