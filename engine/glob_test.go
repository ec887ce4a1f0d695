package engine

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// requiredOf parses a snapshots.required list and reports which names it
// covers.
func requiredOf(t *testing.T, globs string, names ...string) map[string]bool {
	t.Helper()
	c, err := parseConfig([]byte(`{"snapshots":{"required":` + globs + `}}`))
	if err != nil {
		t.Fatal(err)
	}
	_, ws := testStore(t)
	got := map[string]bool{}
	for _, n := range names {
		got[n] = c.Snapshots.Requires(n, filepath.ToSlash(ws.absPath(n)))
	}
	return got
}

// Braces are alternatives, as editors and shells read them: the usual
// "src/**/*.{ts,tsx}" covers both kinds of file. (Before, braces were
// literal and the rule silently covered nothing.)
func TestRequiredGlobBraces(t *testing.T) {
	got := requiredOf(t, `["src/**/*.{ts,tsx}","contracts/**","{a,b}/x.md"]`,
		"src/a.ts", "src/deep/er/b.tsx", "src/a.js", "lib/a.ts",
		"contracts", "contracts/x/y.sol", "a/x.md", "b/x.md", "c/x.md")
	want := map[string]bool{
		"src/a.ts": true, "src/deep/er/b.tsx": true, "src/a.js": false, "lib/a.ts": false,
		"contracts": true, "contracts/x/y.sol": true, "a/x.md": true, "b/x.md": true, "c/x.md": false,
	}
	for n, w := range want {
		if got[n] != w {
			t.Errorf("required(%s) = %v, want %v", n, got[n], w)
		}
	}
}

// A glob that cannot match as meant is a config error naming the key and
// the glob, when config.json is read: a safety rule is never silently off.
func TestRequiredGlobRefusedAtLoad(t *testing.T) {
	for _, g := range []string{
		`[`, `[a-`, `src/{a,b`, `x\`,
		strings.Repeat("{a,b}", 9) + "x", // 512 ways to read it
		"{" + strings.Repeat("{a,b,c,d}", 5) + ",z}",
	} {
		_, err := parseConfig([]byte(`{"snapshots":{"required":["x/**",` + jsonString(g) + `]}}`))
		var ce *configError
		if !errors.As(err, &ce) || ce.Key != "snapshots.required" || !strings.Contains(err.Error(), g) || !errors.Is(err, ErrBadInput) {
			t.Errorf("glob %q: error %v, want a config error naming snapshots.required and the glob", g, err)
		}
	}
	// At the limit, and with braces inside classes or escaped, it loads.
	for _, g := range []string{strings.Repeat("{a,b}", 8) + "x", `[{]x`, `\{a,b\}`, `src/**/*.{ts,tsx}`} {
		if _, err := parseConfig([]byte(`{"snapshots":{"required":[` + jsonString(g) + `]}}`)); err != nil {
			t.Errorf("glob %q: %v", g, err)
		}
	}
}

func jsonString(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}

// The cost of a required glob is bounded whatever the pattern and the
// name: runs of "**" and a path 500 folders deep, which backtracked
// exponentially before (a dozen "**" against 80 folders did not finish in
// a minute), and the most braces a glob may hold. The test would not end
// with an exponential matcher; BenchmarkRequiredGlobPathological measures.
func TestRequiredGlobPathological(t *testing.T) {
	deep := strings.Repeat("d/", 500) + "f.txt"
	aa := strings.Repeat("a", 8) + "y"
	got := requiredOf(t, `["`+strings.Repeat("**/", 12)+`nomatch", "`+strings.Repeat("**/*/", 12)+`nomatch", "`+
		strings.Repeat("{a,a}", 8)+`x"]`, deep, aa)
	if got[deep] || got[aa] {
		t.Fatalf("matched %v", got)
	}
	got = requiredOf(t, `["`+strings.Repeat("**/", 12)+`d/f.txt"]`, deep)
	if !got[deep] {
		t.Fatal("no match for the deep path")
	}
}
