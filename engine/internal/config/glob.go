package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// The globs of snapshots.required are doublestar patterns over
// slash-separated names: "*" and "?" within a segment, "[...]" classes,
// "{a,b}" alternatives, "\" escapes, and "**" as a whole segment for any
// number of segments. They are checked when config.json is read
// (CompileGlob), so matching cannot fail.
//
// Matching costs about the pattern's length times the name's, once for
// each way its braces can be read: "**" backtracks to its last use only,
// and a pattern whose braces read more than maxGlobAlternatives ways is
// refused, as "{a,b}" repeated would otherwise cost twice as much with
// every repetition.

// maxGlobAlternatives is the most ways a glob's braces may be read.
const maxGlobAlternatives = 256

// CompileGlob checks glob g and returns it as MatchGlob takes it: a
// trailing "/" dropped, and a run of "**" segments made one (they match
// the same names).
func CompileGlob(g string) (string, error) {
	if g == "" {
		return "", errors.New("an empty glob")
	}
	if !doublestar.ValidatePattern(g) {
		return "", fmt.Errorf("bad glob %q", g)
	}
	if n := braceAlternatives(g); n > maxGlobAlternatives {
		return "", fmt.Errorf("glob %q has more than %d alternatives", g, maxGlobAlternatives)
	}
	segs := strings.Split(g, "/")
	out := segs[:0]
	for i, s := range segs {
		if s == "**" && i > 0 && segs[i-1] == "**" {
			continue
		}
		out = append(out, s)
	}
	c := strings.Join(out, "/")
	if len(c) > 1 {
		c = strings.TrimSuffix(c, "/")
	}
	return c, nil
}

// MatchGlob reports whether the slash-separated name matches a glob that
// CompileGlob returned. A glob that did not pass CompileGlob matches
// everything: a required snapshot is never waived by a pattern error.
func MatchGlob(glob, name string) bool {
	ok, err := doublestar.Match(glob, name)
	return ok || err != nil
}

// braceAlternatives is the number of ways the braces of glob g can be read
// (1 without braces), counted past maxGlobAlternatives no further.
func braceAlternatives(g string) int {
	n, _ := braceSeq(g, 0, false)
	return n
}

// braceSeq counts the alternatives of the sequence of g from i up to its
// end or, inside braces, the "," or "}" that ends it; it returns the count
// and where it stopped.
func braceSeq(g string, i int, inside bool) (int, int) {
	n := 1
	for i < len(g) {
		switch g[i] {
		case '\\':
			i += 2
		case '[':
			// A class is one character; braces in it are literal.
			j := i + 1
			for j < len(g) && g[j] != ']' {
				if g[j] == '\\' {
					j++
				}
				j++
			}
			i = j + 1
		case '{':
			sum := 0
			i++
			for {
				m, j := braceSeq(g, i, true)
				sum = min(sum+m, maxGlobAlternatives+1)
				i = j
				if i >= len(g) || g[i] == '}' {
					i++
					break
				}
				i++ // past ","
			}
			n = min(n*sum, maxGlobAlternatives+1)
		case ',', '}':
			if inside {
				return n, i
			}
			i++
		default:
			i++
		}
	}
	return n, i
}
