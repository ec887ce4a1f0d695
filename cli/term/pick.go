package term

import (
	"fmt"
	"io"
	"os"
	"strings"

	xterm "golang.org/x/term"
)

// defaultPageHeight is the page height when out's size is unknown.
const defaultPageHeight = 20

// Pick shows rows (sorted newest first by the caller) below the cursor and
// lets the user choose one; it returns its index into rows. Typing filters
// by a case-insensitive substring of title or id; Up/Down move, PgUp/PgDn
// page, Home/End go to the first/last row, Enter chooses, Esc, Ctrl-C or
// Ctrl-D leave with ErrCancelled. Every row can be reached. in must be a
// terminal (else ErrNotTerminal); it is in raw mode until Pick returns,
// and what Pick drew is wiped.
func Pick(in *os.File, out io.Writer, rows []Row) (int, error) {
	if len(rows) == 0 {
		return 0, ErrNoRows
	}
	fd, err := terminalFD(in)
	if err != nil {
		return 0, err
	}
	cols, lines := screenSize(out)
	old, err := xterm.MakeRaw(fd)
	if err != nil {
		return 0, err
	}
	defer xterm.Restore(fd, old)
	return newPicker(out, rows, cols, lines).run(newDecoder(in))
}

// picker draws a pickView and feeds it keys.
type picker struct {
	v     *pickView
	out   io.Writer
	width int // columns to draw in, 0 = unknown
}

// newPicker sizes the page to the screen: the filter line, the rows, the
// footer and one spare line, so the frame never scrolls off the top.
func newPicker(out io.Writer, rows []Row, cols, lines int) *picker {
	h := defaultPageHeight
	if lines > 0 {
		h = max(1, lines-3)
	}
	return &picker{v: newPickView(rows, h), out: out, width: cols}
}

// run reads keys until a row is chosen or the picker is left.
func (p *picker) run(dec *decoder) (int, error) {
	defer io.WriteString(p.out, "\r\x1b[J")
	v := p.v
	for {
		p.draw()
		ev, err := dec.next()
		if err != nil {
			return 0, err
		}
		switch ev.key {
		case KeyEnter:
			if i, ok := v.chosen(); ok {
				return i, nil
			}
		case KeyEsc, KeyCtrlC, KeyCtrlD:
			return 0, ErrCancelled
		case KeyUp:
			v.move(-1)
		case KeyDown:
			v.move(1)
		case KeyPgUp:
			v.page(-1)
		case KeyPgDn:
			v.page(1)
		case KeyHome:
			v.move(-len(v.match))
		case KeyEnd:
			v.move(len(v.match))
		case KeyRune:
			v.setFilter(v.filter + string(ev.r))
		case KeyBackspace:
			if r := []rune(v.filter); len(r) > 0 {
				v.setFilter(string(r[:len(r)-1]))
			}
		case KeyCtrlU:
			v.setFilter("")
		case KeyCtrlW:
			l := lineBuf{}
			l.set(v.filter)
			l.killWord()
			v.setFilter(l.String())
		}
	}
}

// frame returns the lines of one picture: the filter line, the page of
// rows (the selected one marked and in reverse video) and the footer.
func (p *picker) frame() []string {
	v := p.v
	lines := []string{p.fit("filter: " + drawn(v.filter))}
	sel, _ := v.chosen()
	for _, i := range v.window() {
		mark := "  "
		if i == sel {
			mark = "> "
		}
		s := p.fit(mark + formatRow(v.rows[i]))
		if i == sel {
			s = "\x1b[7m" + s + "\x1b[0m"
		}
		lines = append(lines, s)
	}
	n := 0
	if len(v.match) > 0 {
		n = v.sel + 1
	}
	foot := fmt.Sprintf("%d of %d", n, len(v.match))
	if v.filter != "" {
		foot += fmt.Sprintf(" (%d in all)", len(v.rows))
	}
	foot += "  Up/Down move, PgUp/PgDn page, Enter choose, Esc leave"
	return append(lines, p.fit(foot))
}

// draw draws the frame below the cursor, clearing what an earlier frame
// left below it, and leaves the cursor at the end of the filter line.
func (p *picker) draw() {
	lines := p.frame()
	s := "\r" + strings.Join(lines, "\x1b[K\r\n") + "\x1b[K\x1b[J"
	if len(lines) > 1 {
		s += fmt.Sprintf("\x1b[%dA", len(lines)-1)
	}
	s += "\r" + lines[0]
	io.WriteString(p.out, s)
}

// fit cuts s to the screen width, leaving the last column free so that a
// full line never wraps.
func (p *picker) fit(s string) string {
	if p.width <= 1 {
		return s
	}
	return cut(s, p.width-1)
}
