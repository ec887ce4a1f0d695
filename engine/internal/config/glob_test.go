package config

import (
	"strings"
	"testing"
)

// Runs of "**" collapse into one when the config is read.
func TestCompileGlobCollapsesDoubleStars(t *testing.T) {
	for in, want := range map[string]string{
		"**/**/**/x":           "**/x",
		"a/**/**/b/**/**/**/":  "a/**/b/**",
		"**":                   "**",
		"a/**b/**":             "a/**b/**",
		"{**/**,y}/z":          "{**/**,y}/z",
		"/abs/**/**/*.{c,h}":   "/abs/**/*.{c,h}",
		"contracts/":           "contracts",
		"/":                    "/",
		`src/\*\*/\*\*/x.go`:   `src/\*\*/\*\*/x.go`,
		"**/**/**/**/**/**/**": "**",
	} {
		got, err := CompileGlob(in)
		if err != nil || got != want {
			t.Errorf("CompileGlob(%q) = %q, %v, want %q", in, got, err, want)
		}
	}
}

func BenchmarkRequiredGlobPathological(b *testing.B) {
	deep := strings.Repeat("d/", 500) + "f.txt"
	for _, g := range []string{
		strings.Repeat("**/", 12) + "nomatch",
		strings.Repeat("**/*/", 12) + "nomatch",
		strings.Repeat("{d/,d/}", 8) + "**/nomatch",
	} {
		cg, err := CompileGlob(g)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(g[:12], func(b *testing.B) {
			for b.Loop() {
				if MatchGlob(cg, deep) {
					b.Fatal("matched")
				}
			}
		})
	}
}
