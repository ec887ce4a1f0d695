package ids

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func takenSet(names ...string) (map[string]bool, func(string) bool) {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m, func(s string) bool { return m[s] }
}

func TestSlugTable(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Implement active footer chips", "implement-active-footer-chips"},
		{"  Fix   the BUG!! ", "fix-the-bug"},
		{"snake_case and--dashes", "snake-case-and-dashes"},
		{"v2.3 release", "v2-3-release"},
		{"café déjà vu", "caf-d-j-vu"},
		{"---", "task"},
		{"", "task"},
		{"日本語", "task"},
		{"a", "a"},
		{"123", "123"},
		{"\t\nline\nbreaks\r\n", "line-breaks"},
	} {
		if got := Slug(c.in, nil); got != c.want {
			t.Errorf("Slug(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSlugCollisions(t *testing.T) {
	m, taken := takenSet()
	var got []string
	for range 4 {
		id := Slug("Run tests", taken)
		m[id] = true
		got = append(got, id)
	}
	want := []string{"run-tests", "run-tests-2", "run-tests-3", "run-tests-4"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	// A gap is filled first.
	delete(m, "run-tests-2")
	if id := Slug("run tests", taken); id != "run-tests-2" {
		t.Fatalf("gap: got %q", id)
	}
	// The fallback collides like any other slug.
	_, taken = takenSet("task", "task-2")
	if id := Slug("!!!", taken); id != "task-3" {
		t.Fatalf("fallback collision: got %q", id)
	}
}

func TestSlugLengthLimit(t *testing.T) {
	long := strings.Repeat("word ", 40) // "word-word-...": a '-' falls at every 5th position
	base := Slug(long, nil)
	if len(base) != MaxLen || strings.HasSuffix(base, "-") {
		t.Fatalf("base %q (len %d)", base, len(base))
	}
	// Take everything up to -100 so the suffixes -10 and -100 are exercised.
	m, taken := takenSet(base)
	for n := 2; n <= 101; n++ {
		id := Slug(long, taken)
		if len(id) > MaxLen {
			t.Fatalf("suffix %d: %q is %d chars", n, id, len(id))
		}
		want := fmt.Sprintf("-%d", n)
		if !strings.HasSuffix(id, want) {
			t.Fatalf("suffix %d: got %q", n, id)
		}
		if strings.Contains(id, "--") {
			t.Fatalf("suffix %d: %q has a doubled dash", n, id)
		}
		if !strings.HasPrefix(base, strings.TrimSuffix(id, want)) {
			t.Fatalf("suffix %d: %q is not a cut of %q", n, id, base)
		}
		m[id] = true
	}
	// A description with no separators is cut exactly to fit.
	x := strings.Repeat("x", 100)
	_, taken = takenSet(strings.Repeat("x", 64))
	if id := Slug(x, taken); id != strings.Repeat("x", 62)+"-2" {
		t.Fatalf("got %q", id)
	}
	m2, taken := takenSet(strings.Repeat("x", 64))
	for n := 2; n <= 9; n++ {
		m2[strings.Repeat("x", 62)+fmt.Sprintf("-%d", n)] = true
	}
	if id := Slug(x, taken); id != strings.Repeat("x", 61)+"-10" || len(id) != 64 {
		t.Fatalf("-10: got %q", id)
	}
	for n := 10; n <= 99; n++ {
		m2[strings.Repeat("x", 61)+fmt.Sprintf("-%d", n)] = true
	}
	if id := Slug(x, taken); id != strings.Repeat("x", 60)+"-100" || len(id) != 64 {
		t.Fatalf("-100: got %q", id)
	}
}

func TestSlugCutDropsDashBeforeSuffix(t *testing.T) {
	// 61 chars then '-' then more: cutting for "-2" (room 62) would end in '-'.
	desc := strings.Repeat("a", 61) + " bbbbbb"
	_, taken := takenSet(Slug(desc, nil))
	id := Slug(desc, taken)
	if id != strings.Repeat("a", 61)+"-2" {
		t.Fatalf("got %q", id)
	}
	if Slug(desc, nil) != strings.Repeat("a", 61)+"-bb" {
		t.Fatalf("uncut: %q", Slug(desc, nil))
	}
}

func TestUnique(t *testing.T) {
	_, taken := takenSet("shell-cargo-test", "shell-cargo-test-2")
	if id := Unique("shell-cargo-test", taken); id != "shell-cargo-test-3" {
		t.Fatalf("got %q", id)
	}
	if id := Unique("", nil); id != "task" {
		t.Fatalf("empty: %q", id)
	}
	if id := Unique(strings.Repeat("q", 70), nil); len(id) != MaxLen {
		t.Fatalf("cut: %q", id)
	}
}

func TestValid(t *testing.T) {
	for s, want := range map[string]bool{
		"a": true, "run-tests-2": true, "output": true, strings.Repeat("a", 64): true,
		"": false, "-a": false, "a-": false, "a--b": false, "A": false, "a_b": false,
		"a/b": false, "..": false, strings.Repeat("a", 65): false, "a b": false,
	} {
		if Valid(s) != want {
			t.Errorf("Valid(%q) = %v", s, !want)
		}
	}
}

// TestSlugProperties: for random descriptions and random taken sets, every
// id is valid, free, and fits.
func TestSlugProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("abcXYZ019 -_./!é\t")
	for i := 0; i < 2000; i++ {
		n := r.IntN(150)
		b := make([]byte, 0, n)
		for range n {
			b = append(b, alphabet[r.IntN(len(alphabet))])
		}
		desc := string(b)
		m, taken := takenSet()
		for k := 0; k < r.IntN(15)+1; k++ {
			id := Slug(desc, taken)
			if !Valid(id) {
				t.Fatalf("desc %q: invalid id %q", desc, id)
			}
			if m[id] {
				t.Fatalf("desc %q: %q returned while taken", desc, id)
			}
			m[id] = true
		}
	}
}

func FuzzSlug(f *testing.F) {
	for _, s := range []string{"Implement active footer chips", "", "---", strings.Repeat("ab ", 40), "日本語 x", "a--b__c"} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, desc string, n int) {
		n = n % 20
		if n < 0 {
			n = -n
		}
		m, taken := takenSet()
		for range n + 1 {
			for _, id := range []string{Slug(desc, taken)} {
				if !Valid(id) {
					t.Fatalf("%q: invalid %q", desc, id)
				}
				if m[id] {
					t.Fatalf("%q: %q taken", desc, id)
				}
				m[id] = true
			}
		}
		if Normalize(Normalize(desc)) != Normalize(desc) {
			t.Fatalf("Normalize not idempotent on %q", desc)
		}
	})
}
