package cli

import (
	"bytes"
	"testing"

	"cairn/cli/display"
)

// Under NO_COLOR a tool's colours are taken out of what `cairn output`
// prints; other sequences stay escaped; without it the colours stay.
func TestNoColor(t *testing.T) {
	stored := "\x1b[31mred\x1b[0m and \x1b[2Jclear\n"
	show := func() (string, string) {
		var b bytes.Buffer
		w := display.OutputWriter(colorWriter(&b))
		for _, c := range []byte(stored) { // one byte per write: sequences cut anywhere
			w.Write([]byte{c})
		}
		w.Flush()
		return b.String(), colors(display.Output(stored))
	}
	t.Setenv("NO_COLOR", "")
	if s, line := show(); s != "\x1b[31mred\x1b[0m and \\x1b[2Jclear\n" || line != s {
		t.Fatalf("colours lost without NO_COLOR: %q, %q", s, line)
	}
	t.Setenv("NO_COLOR", "1")
	if s, line := show(); s != "red and \\x1b[2Jclear\n" || line != s {
		t.Fatalf("under NO_COLOR: %q, %q", s, line)
	}
}
