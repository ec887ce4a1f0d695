// Package display makes text cairn did not write itself safe to print for a
// person: titles, file names, prompts, tool output and error messages that
// echo them can hold terminal control sequences (a title that turns the
// listing red, an OSC sequence that retitles the window or writes the
// clipboard), line breaks that forge rows, and bytes that are not UTF-8.
//
// # What is escaped
//
// Every C0 control (U+0000–U+001F) and DEL, every C1 control (U+0080–U+009F),
// the Unicode line and paragraph separators and the bidirectional overrides
// and isolates (U+202A–U+202E, U+2066–U+2069) are shown as Go-style escapes:
// \n, \t and \r by name, \x1b for other bytes below 0x80, \u009b above; a
// byte that is not part of valid UTF-8 is shown as \xff. A backslash is left
// as it is: this is for reading, not for parsing back.
//
// Line escapes all of them: for a field printed on one line (a title, a
// path). Text keeps line feeds and tabs: for a block of text (a transcript,
// a message). Output also keeps SGR sequences (ESC [ ... m, colours and
// bold): for tool output, whose colours are part of what a tool said; every
// other escape sequence (cursor moves, OSC titles and clipboard writes,
// device queries) is escaped. Writer and OutputWriter apply Text and Output
// to everything written through them.
//
// Only what is shown is changed: files keep their bytes, and JSON answers
// carry the exact strings (JSON escapes control characters itself).
package display

import (
	"strings"
	"unicode/utf8"
)

// Name is a file name for one line of a terminal: Line, and quoted as a
// shell word ('my file.txt') when it holds a space, a comma or a shell's
// special character (a backslash too; the escapes Line writes for
// control bytes do not count), the way the REPL's tool lines take it back:
// `:write a.txt HELLO` makes a file named "a.txt HELLO", and a listing
// that shows it as 'a.txt HELLO' says so where a.txt HELLO reads as a.txt.
func Name(s string) string {
	quote := strings.ContainsAny(s, " \t,'\"\\$`;&|<>(){}*?[]#~!")
	s = Line(s)
	if quote {
		s = "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return s
}

// Line is s for one line of a terminal: every control character escaped.
func Line(s string) string { return clean(s, false, false) }

// Title is a session's title for a row of a listing or the picker: Line,
// or "(untitled)" for a session that has none yet (one that only a file
// tool or an agent's hook wrote to).
func Title(s string) string {
	if s == "" {
		return "(untitled)"
	}
	return Line(s)
}

// Text is s for a terminal, line feeds and tabs kept.
func Text(s string) string { return clean(s, true, false) }

// Output is tool output for a terminal: line feeds, tabs and SGR colour
// sequences kept, every other control escaped.
func Output(s string) string { return clean(s, true, true) }

// clean escapes s; multiline keeps \n and \t, sgr keeps SGR sequences.
func clean(s string, multiline, sgr bool) string {
	if safe(s, multiline) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	appendClean(&b, s, multiline, sgr)
	return b.String()
}

// safe reports whether s needs no escape: the common case, without a copy.
func safe(s string, multiline bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && !(multiline && (c == '\n' || c == '\t')) || c == 0x7f {
			return false
		}
		if c >= 0x80 {
			return safeRunes(s[i:])
		}
	}
	return true
}

func safeRunes(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 || r < 0x20 || r == 0x7f || escapedRune(r) {
			return false
		}
		i += n
	}
	return true
}

// escapedRune reports whether a non-ASCII rune is shown escaped.
func escapedRune(r rune) bool {
	return r >= 0x80 && r <= 0x9f || r == 0x2028 || r == 0x2029 ||
		r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

const hexDigits = "0123456789abcdef"

func appendClean(b *strings.Builder, s string, multiline, sgr bool) {
	for i := 0; i < len(s); {
		c := s[i]
		if c == 0x1b && sgr {
			if n := sgrLen(s[i:]); n > 0 {
				b.WriteString(s[i : i+n])
				i += n
				continue
			}
		}
		if c < 0x80 {
			switch {
			case c == '\n' && multiline, c == '\t' && multiline:
				b.WriteByte(c)
			case c == '\n':
				b.WriteString(`\n`)
			case c == '\t':
				b.WriteString(`\t`)
			case c == '\r':
				b.WriteString(`\r`)
			case c < 0x20 || c == 0x7f:
				b.WriteString(`\x`)
				b.WriteByte(hexDigits[c>>4])
				b.WriteByte(hexDigits[c&15])
			default:
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			b.WriteString(`\x`)
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
			i++
			continue
		case escapedRune(r):
			b.WriteString(`\u`)
			for shift := 12; shift >= 0; shift -= 4 {
				b.WriteByte(hexDigits[(r>>shift)&15])
			}
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
}

// sgrLen is the length of the SGR sequence s starts with (ESC [, digits
// and semicolons, m), or 0 when it starts with anything else.
func sgrLen(s string) int {
	if len(s) < 3 || s[0] != 0x1b || s[1] != '[' {
		return 0
	}
	for i := 2; i < len(s) && i < 64; i++ {
		switch c := s[i]; {
		case c == 'm':
			return i + 1
		case c >= '0' && c <= '9', c == ';', c == ':':
		default:
			return 0
		}
	}
	return 0
}
