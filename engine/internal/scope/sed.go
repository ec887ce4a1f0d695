package scope

import "strings"

// sedWrites says why a sed script writes files or runs commands, as GNU
// sed reads it: "w" or "W" (write the pattern space to a file), "e" (run
// a command), an s command's "w" or "e" flag; or "unread" for a script it
// cannot read to the end (then it might). "" when the script only edits
// the files sed -i names.
//
// The reading follows GNU sed's compile.c: addresses (numbers, $, first~step,
// /re/ and \cREc with the I and M flags, addr,+N and addr,~N), "!", then a
// one-letter command and its arguments; commands end at ";", a newline or
// "}". A delimiter inside an s or y part is escaped with a backslash (GNU
// sed does not treat brackets specially).
func sedWrites(script string) string {
	r := &sedReader{s: script}
	for {
		r.skip(" \t\n;")
		if r.eof() {
			return ""
		}
		if why := r.command(); why != "" {
			return why
		}
	}
}

type sedReader struct {
	s string
	i int
}

func (r *sedReader) eof() bool { return r.i >= len(r.s) }

func (r *sedReader) peek() byte {
	if r.eof() {
		return 0
	}
	return r.s[r.i]
}

func (r *sedReader) skip(set string) {
	for !r.eof() && strings.IndexByte(set, r.s[r.i]) >= 0 {
		r.i++
	}
}

func (r *sedReader) digits() bool {
	start := r.i
	for !r.eof() && r.s[r.i] >= '0' && r.s[r.i] <= '9' {
		r.i++
	}
	return r.i > start
}

// toLineEnd skips to the end of the line (a file name, a comment).
func (r *sedReader) toLineEnd() {
	for !r.eof() && r.s[r.i] != '\n' {
		r.i++
	}
}

// toCommandEnd skips a label or a version: up to ";" or a newline.
func (r *sedReader) toCommandEnd() {
	for !r.eof() && r.s[r.i] != '\n' && r.s[r.i] != ';' {
		r.i++
	}
}

// delimited skips one part of an s or y command up to its unescaped
// delimiter d, and the delimiter; false when the script ends first.
func (r *sedReader) delimited(d byte) bool {
	for !r.eof() {
		c := r.s[r.i]
		r.i++
		switch {
		case c == '\\':
			if r.eof() {
				return false
			}
			r.i++
		case c == d:
			return true
		}
	}
	return false
}

// address skips one address, if there is one; false when it is malformed.
func (r *sedReader) address() bool {
	switch c := r.peek(); {
	case c >= '0' && c <= '9':
		r.digits()
		if r.peek() == '~' {
			r.i++
			r.digits()
		}
	case c == '$':
		r.i++
	case c == '/' || c == '\\':
		r.i++
		d := byte('/')
		if c == '\\' {
			if r.eof() || r.peek() == '\n' || r.peek() == '\\' {
				return false
			}
			d = r.peek()
			r.i++
		}
		if !r.delimited(d) {
			return false
		}
		r.skip("IM")
	}
	return true
}

// command reads one command with its addresses; its answer is sedWrites'.
func (r *sedReader) command() string {
	if !r.address() {
		return "unread"
	}
	r.skip(" \t")
	if r.peek() == ',' {
		r.i++
		r.skip(" \t")
		if c := r.peek(); c == '+' || c == '~' {
			r.i++
			if !r.digits() {
				return "unread"
			}
		} else if !r.address() {
			return "unread"
		}
	}
	r.skip(" \t")
	for r.peek() == '!' {
		r.i++
		r.skip(" \t")
	}
	if r.eof() {
		return "unread"
	}
	c := r.s[r.i]
	r.i++
	switch c {
	case 'w', 'W':
		return "command " + string(c)
	case 'e':
		return "command e"
	case '{':
		return "" // the block's commands follow at once
	case '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
	case 'l', 'L', 'q', 'Q':
		r.skip(" \t")
		r.digits()
	case '#':
		r.toLineEnd()
	case ':', 'b', 't', 'T', 'v':
		r.toCommandEnd()
	case 'r', 'R':
		r.toLineEnd() // a file read, not written
	case 'a', 'i', 'c':
		// Text to the end of the line; a line ending in a backslash goes
		// on to the next.
		for !r.eof() && r.s[r.i] != '\n' {
			if r.s[r.i] == '\\' {
				r.i++
			}
			r.i++
		}
	case 's':
		return r.substitute()
	case 'y':
		d := r.peek()
		if d == 0 || d == '\n' || d == '\\' {
			return "unread"
		}
		r.i++
		if !r.delimited(d) || !r.delimited(d) {
			return "unread"
		}
	default:
		return "unread"
	}
	return r.commandEnd()
}

// substitute reads an s command after its "s".
func (r *sedReader) substitute() string {
	d := r.peek()
	if d == 0 || d == '\n' || d == '\\' {
		return "unread"
	}
	r.i++
	if !r.delimited(d) || !r.delimited(d) {
		return "unread"
	}
	for !r.eof() {
		switch c := r.s[r.i]; {
		case c == 'w':
			return "flag s///w"
		case c == 'e':
			return "flag s///e"
		case c == 'g' || c == 'p' || c == 'i' || c == 'I' || c == 'm' || c == 'M' || c >= '0' && c <= '9':
			r.i++
		default:
			return r.commandEnd()
		}
	}
	return ""
}

// commandEnd checks that a command ends where it should: spaces, then ";",
// a newline, "}", a comment or the end.
func (r *sedReader) commandEnd() string {
	r.skip(" \t")
	switch r.peek() {
	case 0, ';', '\n', '}', '#':
		return ""
	}
	return "unread"
}
