package term

import (
	"bytes"
	"fmt"
	"io"
	"strings"
)

// inline draws the editor's picture below the cursor, on the rows it
// takes, and redraws it in place. It remembers what it drew and where it
// left the cursor, so a redraw goes back to the first row that changed,
// erases from there down and writes the rest.
//
// A resize is where the terminal itself moves things: most terminals
// (tmux, VTE, iTerm2, kitty, WezTerm, Windows Terminal …) rewrap each row
// that no longer fits into several, cursor included. Each row drawn ends
// with a line break of its own, so after a narrowing each one takes
// ceil(width/cols) rows and the picture starts that much higher above the
// cursor; after a widening nothing moves. reflow goes back up by what the
// terminal made of it and erases from there, so no copy of the old picture
// stays above the new one.
type inline struct {
	out io.Writer
	buf bytes.Buffer

	cols int      // the width the picture was drawn at
	rows []string // the rows drawn, each narrower than cols
	ws   []int    // their widths in cells
	y, x int      // the cursor, from the picture's first row
}

const (
	csi          = "\x1b["
	eraseDown    = csi + "J"
	hideCursor   = csi + "?25l"
	showCursor   = csi + "?25h"
	syncBegin    = csi + "?2026h" // the terminal shows the redraw at once (where it knows the mode)
	syncEnd      = csi + "?2026l"
	pasteOn      = csi + "?2004h"
	pasteOff     = csi + "?2004l"
	clearScreen  = csi + "H" + csi + "2J"
	carriageBack = "\r"
)

func up(n int) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf(csi+"%dA", n)
}

func down(n int) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf(csi+"%dB", n)
}

func forward(n int) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf(csi+"%dC", n)
}

// draw shows rows (their widths ws) with the cursor at row y, cell x.
func (s *inline) draw(rows []string, ws []int, y, x int) {
	b := &s.buf
	b.WriteString(syncBegin + hideCursor)
	first := 0
	for first < len(rows) && first < len(s.rows) && rows[first] == s.rows[first] {
		first++
	}
	if first == len(rows) && len(rows) == len(s.rows) {
		first = len(rows) // nothing changed but the cursor
	} else {
		first = min(first, len(rows)-1)
		s.moveTo(first)
		b.WriteString(carriageBack + eraseDown)
		for i := first; i < len(rows); i++ {
			if i > first {
				b.WriteString("\r\n")
			}
			b.WriteString(rows[i])
		}
		s.y, s.x = len(rows)-1, ws[len(ws)-1]
	}
	s.moveTo(y)
	b.WriteString(carriageBack + forward(x))
	s.x = x
	s.rows, s.ws = append(s.rows[:0], rows...), append(s.ws[:0], ws...)
	b.WriteString(showCursor + syncEnd)
	s.flush()
}

// moveTo moves the cursor to row y of the picture (its cell unknown).
func (s *inline) moveTo(y int) {
	if y < s.y {
		s.buf.WriteString(up(s.y - y))
	} else if y > s.y {
		s.buf.WriteString(down(y - s.y))
	}
	s.y = y
}

// forget starts the next picture from the cursor's row as if nothing had
// been drawn: the rows above it stay as they are.
func (s *inline) forget() {
	s.rows, s.ws, s.y, s.x = s.rows[:0], s.ws[:0], 0, 0
}

// erase goes back to the picture's first row and erases it and all below;
// the next draw starts there.
func (s *inline) erase() {
	s.buf.WriteString(up(s.y) + carriageBack + eraseDown)
	s.forget()
}

// reflow is the window's new width: the terminal may have rewrapped the
// rows drawn (see inline), so the picture is erased from where its first
// row is now.
func (s *inline) reflow(cols int) {
	if cols <= 0 || cols == s.cols {
		return
	}
	if cols < s.cols && len(s.rows) > 0 {
		// The rows above the cursor's, and the part of the cursor's row
		// left of it, each rewrapped at cols.
		above := s.x / cols
		for i := 0; i < s.y && i < len(s.ws); i++ {
			above += max(1, (s.ws[i]+cols-1)/cols)
		}
		s.y = above
	}
	s.cols = cols
	s.erase()
	s.flush()
}

// printAbove writes text, on lines of its own, where the picture is; the
// next draw puts the picture below it.
func (s *inline) printAbove(text string) {
	s.erase()
	s.buf.WriteString(strings.ReplaceAll(strings.TrimSuffix(text, "\n"), "\n", "\r\n") + "\r\n")
	s.flush()
}

// leave moves below the picture, to the start of a new row: what is
// written next stays under it.
func (s *inline) leave() {
	if len(s.rows) > 0 {
		s.moveTo(len(s.rows) - 1)
		s.buf.WriteString("\r\n")
	}
	s.buf.WriteString(showCursor)
	s.forget()
	s.flush()
}

// clear empties the screen; the next draw starts at its top (Ctrl-L).
func (s *inline) clear() {
	s.buf.WriteString(clearScreen)
	s.forget()
	s.flush()
}

// write sends raw bytes (modes) to the terminal.
func (s *inline) write(seq string) {
	s.buf.WriteString(seq)
	s.flush()
}

func (s *inline) flush() {
	if s.buf.Len() == 0 {
		return
	}
	s.out.Write(s.buf.Bytes())
	s.buf.Reset()
}
