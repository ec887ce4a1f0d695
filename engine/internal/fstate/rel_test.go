package fstate

import (
	"errors"
	"testing"
)

var errBad = errors.New("bad input")

// Rel names a file of the workspace, or refuses with the caller's error:
// outside it, the workspace itself, climbing out, a NUL, the state folder.
func TestRel(t *testing.T) {
	homes := []string{"", ".cairn"}
	for _, c := range []struct{ in, want string }{
		{"a.txt", "a.txt"},
		{"./d/../b.txt", "b.txt"},
		{"/w/s/x/y", "x/y"},
		{".cairnish/a", ".cairnish/a"},
		{"", ""}, {"/w/other/a", ""}, {"../a", ""}, {".", ""}, {"/w/s", ""},
		{"a\x00b", ""}, {".cairn", ""}, {".cairn/objects/x", ""},
	} {
		got, err := Rel("/w/s", homes, c.in, errBad)
		if c.want == "" {
			if !errors.Is(err, errBad) {
				t.Errorf("Rel(%q) = %q, %v; want a refusal wrapping the caller's error", c.in, got, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Rel(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, c := range []struct{ home, want string }{
		{"/w/s/.cairn", ".cairn"}, {"/w/s", ""}, {"/w", ""}, {"/elsewhere/.cairn", ""},
	} {
		if got := HomeRel("/w/s", c.home); got != c.want {
			t.Errorf("HomeRel(%q) = %q, want %q", c.home, got, c.want)
		}
	}
}
