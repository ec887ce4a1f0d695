package patch

import (
	"fmt"
	"slices"
	"strings"
)

// The "*** Begin Patch" envelope, the patch shape Codex models emit. Its
// grammar, as Codex publishes it (Lark):
//
//	start: begin_patch hunk+ end_patch
//	begin_patch: "*** Begin Patch" LF
//	end_patch: "*** End Patch" LF?
//	hunk: add_hunk | delete_hunk | update_hunk
//	add_hunk: "*** Add File: " filename LF add_line+
//	delete_hunk: "*** Delete File: " filename LF
//	update_hunk: "*** Update File: " filename LF change_move? change?
//	filename: /(.+)/
//	add_line: "+" /(.+)/ LF -> line
//	change_move: "*** Move to: " filename LF
//	change: (change_context | change_line)+ eof_line?
//	change_context: ("@@" | "@@ " /(.+)/) LF
//	change_line: ("+" | "-" | " ") /(.+)/ LF
//	eof_line: "*** End of File" LF
//
// Read as Codex reads it, a little more leniently than the grammar: lines
// end in LF or CRLF; white space around the markers is ignored; the patch
// may be wrapped in a heredoc (<<EOF ... EOF); an empty line in a hunk is an
// empty context line; blank lines between hunks are skipped; the first
// hunk of an Update may leave out its "@@" line. An Update needs at least
// one hunk (a rename alone is not one), and an Add File's content always
// ends with a newline, as does every file an Update writes.
//
// A hunk's "-" and " " lines (its old lines) are found in the file after
// the previous hunk, and after its "@@ context" line when it has one; "*** End
// of File" looks for them at the end first. A hunk with no old lines adds
// its lines after its context line, or at the end of the file when it has
// none. Codex's matching rules decide where lines match (seek).

const (
	beginMarker  = "*** Begin Patch"
	endMarker    = "*** End Patch"
	addMarker    = "*** Add File: "
	deleteMarker = "*** Delete File: "
	updateMarker = "*** Update File: "
	moveMarker   = "*** Move to: "
	eofMarker    = "*** End of File"
)

// chunk is one "@@" hunk of an Update.
type chunk struct {
	context  *string // the "@@ context" line, when given
	old, new []string
	eof      bool
	line     int // where it starts in the patch, numbered from 1
}

func isHeredoc(s string) bool { return s == "<<EOF" || s == "<<'EOF'" || s == `<<"EOF"` }

// envelopeLines splits the patch into lines, as Rust's str::lines does
// (LF, or CRLF with the CR dropped), after trimming it as a whole.
func envelopeLines(b []byte) []string {
	s := strings.TrimSpace(string(b))
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

func parseEnvelope(b []byte) ([]*File, error) {
	lines := envelopeLines(b)
	first := 1 // the line number of lines[0]
	if n := len(lines); n >= 4 && isHeredoc(strings.TrimSpace(lines[0])) && strings.HasSuffix(lines[n-1], "EOF") {
		lines, first = lines[1:n-1], 2
	}
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != beginMarker {
		return nil, malformed("the first line of the patch must be %q", beginMarker)
	}
	if len(lines) < 2 || strings.TrimSpace(lines[len(lines)-1]) != endMarker {
		return nil, malformed("the last line of the patch must be %q", endMarker)
	}
	p := &envParser{lines: lines[1 : len(lines)-1], first: first + 1}
	var files []*File
	for p.i < len(p.lines) {
		f, err := p.hunk()
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// envParser reads the hunks of an envelope, between its markers.
type envParser struct {
	lines []string
	first int // the line number of lines[0]
	i     int
}

func (p *envParser) errorf(i int, format string, a ...any) error {
	return malformed("line %d: %s", p.first+i, fmt.Sprintf(format, a...))
}

// hunk reads one file's hunk.
func (p *envParser) hunk() (*File, error) {
	at := p.i
	head := strings.TrimSpace(p.lines[at])
	p.i++
	if path, ok := strings.CutPrefix(head, addMarker); ok {
		var content strings.Builder
		for ; p.i < len(p.lines); p.i++ {
			l, ok := strings.CutPrefix(p.lines[p.i], "+")
			if !ok {
				break
			}
			content.WriteString(l)
			content.WriteByte('\n')
		}
		body := content.String()
		return &File{Kind: Add, Path: path, apply: func([]byte) ([]byte, error) { return []byte(body), nil }}, nil
	}
	if path, ok := strings.CutPrefix(head, deleteMarker); ok {
		return &File{Kind: Delete, Path: path, apply: func([]byte) ([]byte, error) { return nil, nil }}, nil
	}
	path, ok := strings.CutPrefix(head, updateMarker)
	if !ok {
		return nil, p.errorf(at, "%q is not a hunk header; one of %q, %q or %q is", head, addMarker+"PATH", deleteMarker+"PATH", updateMarker+"PATH")
	}
	f := &File{Kind: Update, Path: path}
	if p.i < len(p.lines) {
		if to, ok := strings.CutPrefix(strings.TrimSpace(p.lines[p.i]), moveMarker); ok {
			f.MoveTo = to
			p.i++
		}
	}
	var chunks []*chunk
	for p.i < len(p.lines) {
		l := p.lines[p.i]
		if strings.TrimSpace(l) == "" {
			p.i++
			continue
		}
		if strings.HasPrefix(l, "*") {
			break
		}
		c, err := p.chunk(len(chunks) == 0)
		if err != nil {
			return nil, err
		}
		chunks = append(chunks, c)
	}
	if len(chunks) == 0 {
		return nil, p.errorf(at, "the update of %s has no hunk", path)
	}
	f.apply = func(old []byte) ([]byte, error) { return applyChunks(f.Path, old, chunks) }
	return f, nil
}

// chunk reads one "@@" hunk of an Update; the first may leave out its
// "@@" line.
func (p *envParser) chunk(first bool) (*chunk, error) {
	c := &chunk{line: p.first + p.i}
	switch l := p.lines[p.i]; {
	case l == "@@":
		p.i++
	case strings.HasPrefix(l, "@@ "):
		ctx := l[len("@@ "):]
		c.context = &ctx
		p.i++
	case !first:
		return nil, p.errorf(p.i, "a hunk must begin with an @@ line, not %q", l)
	}
	n := 0
	for ; p.i < len(p.lines); p.i++ {
		l := p.lines[p.i]
		if l == eofMarker {
			if n == 0 {
				break
			}
			c.eof = true
			p.i++
			return c, nil
		}
		if l == "" {
			c.old, c.new = append(c.old, ""), append(c.new, "")
			n++
			continue
		}
		switch l[0] {
		case ' ':
			c.old, c.new = append(c.old, l[1:]), append(c.new, l[1:])
		case '+':
			c.new = append(c.new, l[1:])
		case '-':
			c.old = append(c.old, l[1:])
		default:
			if n == 0 {
				return nil, p.errorf(p.i, "%q: each line of a hunk begins with ' ' (context), '+' (added) or '-' (removed)", l)
			}
			return c, nil // the next hunk's line
		}
		n++
	}
	if n == 0 {
		return nil, p.errorf(min(p.i, len(p.lines)-1), "a hunk without lines")
	}
	return c, nil
}

// replacement is old lines [start, start+n) of a file replaced by lines.
type replacement struct {
	start, n int
	lines    []string
}

// applyChunks applies an Update's hunks to old, in order: each is looked
// for after the one before it.
func applyChunks(path string, old []byte, chunks []*chunk) ([]byte, error) {
	lines := strings.Split(string(old), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	// A file whose lines all end in CRLF gets CRLF on the lines added.
	crlf := len(lines) > 0 && !slices.ContainsFunc(lines, func(l string) bool { return !strings.HasSuffix(l, "\r") })
	var reps []replacement
	at := 0
	for k, c := range chunks {
		fail := func(format string, a ...any) error {
			return &HunkError{Path: path, Hunk: k + 1, Reason: fmt.Sprintf(format, a...) + fmt.Sprintf(" (the hunk at line %d of the patch)", c.line)}
		}
		if c.context != nil {
			i, ok := seek(lines, []string{*c.context}, at, false)
			if !ok {
				return nil, fail("its context line %q is not in the file", *c.context)
			}
			at = i + 1
		}
		neu := c.new
		if crlf {
			neu = make([]string, len(c.new))
			for i, l := range c.new {
				neu[i] = l + "\r"
			}
		}
		if len(c.old) == 0 {
			ins := len(lines)
			if c.context != nil && !c.eof {
				ins = at
			}
			reps = append(reps, replacement{ins, 0, neu})
			continue
		}
		pat := c.old
		i, ok := seek(lines, pat, at, c.eof)
		if !ok && pat[len(pat)-1] == "" {
			// A last empty line may stand for the file's final newline.
			pat = pat[:len(pat)-1]
			if len(neu) > 0 && strings.TrimSuffix(neu[len(neu)-1], "\r") == "" {
				neu = neu[:len(neu)-1]
			}
			i, ok = seek(lines, pat, at, c.eof)
		}
		if !ok {
			return nil, fail("its lines are not in the file after the hunk before it:\n%s", strings.Join(c.old, "\n"))
		}
		reps = append(reps, replacement{i, len(pat), neu})
		at = i + len(pat)
	}
	slices.SortStableFunc(reps, func(a, b replacement) int { return a.start - b.start })
	out := make([]string, 0, len(lines))
	next := 0
	for _, r := range reps {
		if r.start < next { // an insertion before lines already replaced
			r.start = next
		}
		out = append(out, lines[next:r.start]...)
		out = append(out, r.lines...)
		next = r.start + r.n
	}
	out = append(out, lines[next:]...)
	return []byte(strings.Join(out, "\n") + "\n"), nil
}

// seek finds pattern in lines at or after start (at the end first, when
// eof), trying Codex's rules in turn: exact, then ignoring trailing white
// space, then ignoring surrounding white space, then with typographic
// punctuation and spaces read as ASCII.
func seek(lines, pattern []string, start int, eof bool) (int, bool) {
	if len(pattern) == 0 {
		return start, true
	}
	last := len(lines) - len(pattern)
	if last < 0 {
		return 0, false
	}
	for _, same := range []func(a, b string) bool{
		func(a, b string) bool { return a == b },
		func(a, b string) bool {
			return strings.TrimRight(a, " \t\r\n\v\f") == strings.TrimRight(b, " \t\r\n\v\f")
		},
		func(a, b string) bool { return strings.TrimSpace(a) == strings.TrimSpace(b) },
		func(a, b string) bool { return normalise(a) == normalise(b) },
	} {
		match := func(i int) bool {
			for k, p := range pattern {
				if !same(lines[i+k], p) {
					return false
				}
			}
			return true
		}
		if eof && match(last) {
			return last, true
		}
		for i := start; i <= last; i++ {
			if match(i) {
				return i, true
			}
		}
	}
	return 0, false
}

// normalise trims s and reads typographic dashes, quotes and spaces as
// their ASCII forms.
func normalise(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212':
			return '-'
		case '\u2018', '\u2019', '\u201A', '\u201B':
			return '\''
		case '\u201C', '\u201D', '\u201E', '\u201F':
			return '"'
		case '\u00A0', '\u2002', '\u2003', '\u2004', '\u2005', '\u2006', '\u2007', '\u2008', '\u2009', '\u200A', '\u202F', '\u205F', '\u3000':
			return ' '
		}
		return r
	}, strings.TrimSpace(s))
}
