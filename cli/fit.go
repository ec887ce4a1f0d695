package cli

import (
	"strings"

	"github.com/clipperhouse/displaywidth"
	xterm "golang.org/x/term"
)

// What the REPL prints for a person (/help, /storage) is fitted to the
// window: a line wider than it wraps at its blanks, its later rows indented
// to the line's second column, so a terminal never cuts a word or a
// two-column list loses its shape.

// width is the window's width when the REPL runs on a terminal, else 0
// (no fitting: a script reads the lines whole).
func (r *repl) width() int {
	f := stdinTerminal(r.g)
	if f == nil {
		return 0
	}
	cols, _, err := xterm.GetSize(int(f.Fd()))
	if err != nil {
		return 0
	}
	return cols
}

// fitText wraps every line of text wider than width-1 cells (the last
// cell is left free, so the terminal never wraps a row itself) at its
// blanks. The rows after a line's first are indented to its second column
// (where a run of two blanks after its first word ends), or to its own
// indent when it has none. When that leaves the second column too narrow
// (a narrow window), the first column gets a row of its own and the rest
// goes below it, indented. A word wider than the room is left whole. width
// 0 leaves text as it is.
func fitText(text string, width int) string {
	if width <= 0 {
		return text
	}
	room := max(width-1, 8)
	lines := strings.SplitAfter(text, "\n")
	var b strings.Builder
	for _, l := range lines {
		body := strings.TrimSuffix(l, "\n")
		b.WriteString(fitLine(body, room))
		if len(body) < len(l) {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// minColumn is the narrowest second column kept beside the first.
const minColumn = 30

func fitLine(line string, room int) string {
	if displaywidth.String(line) <= room {
		return line
	}
	indent := len(line) - len(strings.TrimLeft(line, " "))
	if i := strings.Index(line[indent:], "  "); i > 0 {
		j := indent + i
		for j < len(line) && line[j] == ' ' {
			j++
		}
		if j < len(line) {
			hang := displaywidth.String(line[:j])
			if room-hang >= minColumn {
				return wrapWords(line, room, hang)
			}
			under := strings.Repeat(" ", indent+4)
			return wrapWords(strings.TrimRight(line[:j], " "), room, indent) + "\n" + wrapWords(under+line[j:], room, indent+4)
		}
	}
	return wrapWords(line, room, min(indent, room/2))
}

// wrapWords wraps line at its blanks into rows of room cells, the rows
// after the first indented by hang.
func wrapWords(line string, room, hang int) string {
	if displaywidth.String(line) <= room {
		return line
	}
	indent := len(line) - len(strings.TrimLeft(line, " "))
	var b strings.Builder
	b.WriteString(line[:indent])
	col := indent
	first := true // no word on this row yet
	rest := line[indent:]
	for rest != "" {
		// The next word and the blanks before it.
		k := 0
		for k < len(rest) && rest[k] == ' ' {
			k++
		}
		blanks := rest[:k]
		e := k
		for e < len(rest) && rest[e] != ' ' {
			e++
		}
		word := rest[k:e]
		rest = rest[e:]
		if word == "" {
			break
		}
		w := displaywidth.String(word)
		if !first && col+len(blanks)+w > room {
			b.WriteString("\n" + strings.Repeat(" ", hang))
			col, blanks = hang, ""
		}
		b.WriteString(blanks + word)
		col += len(blanks) + w
		first = false
	}
	return b.String()
}
