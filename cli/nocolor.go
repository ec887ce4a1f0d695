package cli

import (
	"io"
	"os"

	"cairn/internal/lazyre"
)

// NO_COLOR (no-color.org): when it is set to anything but "", cairn adds no
// colour. cairn's own output has none; the colours of a tool's stored output
// (which `cairn output` keeps) are taken out. The picker's reverse video
// marks the selected row and is not a colour, so it stays.

// noColor reports whether NO_COLOR asks for no colour.
func noColor() bool { return os.Getenv("NO_COLOR") != "" }

// sgrSeq is a colour or style sequence (SGR): ESC [ parameters m.
var sgrSeq = lazyre.New("\x1b\\[[0-9;:]*m")

// colors is s, an output escaped by display.Output, without its SGR
// sequences under NO_COLOR.
func colors(s string) string {
	if noColor() {
		return sgrSeq.ReplaceAllString(s, "")
	}
	return s
}

// colorWriter is w, or under NO_COLOR a writer that drops SGR sequences.
// It is written to by display.OutputWriter, which escapes every other
// sequence and never cuts an SGR sequence between two writes.
func colorWriter(w io.Writer) io.Writer {
	if noColor() {
		return sgrStripper{w}
	}
	return w
}

type sgrStripper struct{ w io.Writer }

func (s sgrStripper) Write(p []byte) (int, error) {
	if _, err := s.w.Write(sgrSeq.Regexp().ReplaceAll(p, nil)); err != nil {
		return 0, err
	}
	return len(p), nil
}
