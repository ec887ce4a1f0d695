package display

import (
	"bytes"
	"io"
	"strings"
	"unicode/utf8"
)

// Writer returns a writer that writes Text of what it is given to w. A
// UTF-8 sequence or an SGR sequence cut by the end of one Write is held
// for the next; Flush writes out what is held (escaped, as it is then
// incomplete).
func Writer(w io.Writer) *Escaper { return &Escaper{w: w} }

// OutputWriter is Writer with Output's rules: SGR sequences kept.
func OutputWriter(w io.Writer) *Escaper { return &Escaper{w: w, sgr: true} }

// Escaper is the writer of Writer and OutputWriter.
type Escaper struct {
	w    io.Writer
	sgr  bool
	held []byte
	b    strings.Builder
}

func (e *Escaper) Write(p []byte) (int, error) {
	data := p
	if len(e.held) > 0 {
		data = append(e.held, p...)
		e.held = nil
	}
	cut := len(data) - incompleteTail(data, e.sgr)
	if cut < len(data) {
		e.held = append([]byte(nil), data[cut:]...)
		data = data[:cut]
	}
	if len(data) == 0 {
		return len(p), nil
	}
	s := string(data)
	if safe(s, true) {
		if _, err := io.WriteString(e.w, s); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	e.b.Reset()
	appendClean(&e.b, s, true, e.sgr)
	if _, err := io.WriteString(e.w, e.b.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what a Write held back.
func (e *Escaper) Flush() error {
	if len(e.held) == 0 {
		return nil
	}
	s := clean(string(e.held), true, e.sgr)
	e.held = nil
	_, err := io.WriteString(e.w, s)
	return err
}

// incompleteTail is how many bytes at the end of p may be the start of a
// UTF-8 sequence, or (with sgr) of an SGR sequence, that the next write
// completes.
func incompleteTail(p []byte, sgr bool) int {
	if sgr {
		if i := bytes.LastIndexByte(p, 0x1b); i >= 0 && len(p)-i < 64 {
			tail := p[i:]
			if sgrPrefix(tail) {
				return len(tail)
			}
		}
	}
	for n := 1; n <= 3 && n <= len(p); n++ {
		c := p[len(p)-n]
		if c < 0x80 {
			return 0
		}
		if c >= 0xc0 { // a lead byte: is its sequence cut?
			if !utf8.FullRune(p[len(p)-n:]) {
				return n
			}
			return 0
		}
	}
	return 0
}

// sgrPrefix reports whether p is ESC, ESC [ or ESC [ followed by digits and
// separators: the start of what may be an SGR sequence.
func sgrPrefix(p []byte) bool {
	if len(p) == 0 || p[0] != 0x1b {
		return false
	}
	if len(p) == 1 {
		return true
	}
	if p[1] != '[' {
		return false
	}
	for _, c := range p[2:] {
		if !(c >= '0' && c <= '9' || c == ';' || c == ':') {
			return false
		}
	}
	return true
}
