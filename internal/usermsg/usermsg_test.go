package usermsg

import (
	"errors"
	"testing"
)

func TestText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"engine: no such session: \"x\" in /w", "no such session: \"x\" in /w"},
		{"engine: fork a: fstate: no free temp name next to b", "fork a: no free temp name next to b"},
		{"engine: exec: scope: the workspace passes max_files (at /w)", "exec: the workspace passes max_files (at /w)"},
		{"journal: write: openat .items.jsonl123456789: no space left on device", "write: no space left on device"},
		{"a plain message: engine-like words stay", "a plain message: engine-like words stay"},
	} {
		if got := Text(c.in); got != c.want {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if Error(nil) != "" || Error(errors.New("engine: refused: nothing to undo")) != "refused: nothing to undo" {
		t.Error("Error")
	}
}
