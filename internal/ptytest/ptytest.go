// Package ptytest is a pseudo-terminal for tests: the code under test gets
// the terminal's tty, the test types on the master side and waits for what
// is drawn. Every wait is bounded by Guard, which only stops a hung test;
// nothing asserts how long anything takes.
package ptytest

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"
	"golang.org/x/sys/unix"
	xterm "golang.org/x/term"
)

// Guard bounds every wait.
const Guard = 15 * time.Second

// Term is an open pseudo-terminal.
type Term struct {
	Master, TTY *os.File
	FD          int // TTY's descriptor

	mu      sync.Mutex
	screen  *vt.Emulator // what a terminal of this size shows, fed every byte drawn
	out     []byte
	seen    int // out[:seen] was matched by Expect already
	changed chan struct{}
}

// Open opens a terminal of rows by cols, closed when the test ends.
func Open(t testing.TB, rows, cols uint16) *Term {
	t.Helper()
	m, s, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	rc, err := s.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	fd := -1
	rc.Control(func(p uintptr) { fd = int(p) })
	if err := unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, &unix.Winsize{Row: rows, Col: cols}); err != nil {
		t.Fatal(err)
	}
	p := &Term{Master: m, TTY: s, FD: fd, changed: make(chan struct{}, 1), screen: vt.NewEmulator(int(cols), int(rows))}
	// The emulator's answers to queries are dropped: nobody answers the
	// program under test, as with a terminal that does not know them.
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		io.Copy(io.Discard, p.screen)
	}()
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, err := m.Read(buf)
			p.mu.Lock()
			p.out = append(p.out, buf[:n]...)
			p.screen.Write(buf[:n])
			p.mu.Unlock()
			select {
			case p.changed <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		s.Close() // the master's reads end with EIO
		select {
		case <-done:
		case <-time.After(Guard):
		}
		m.Close()
		// The emulator's Read looks at its closed flag without a lock, so
		// Close may not run while the drain reads: its input pipe is
		// closed first, which ends the drain, and Close comes after.
		p.mu.Lock()
		p.screen.InputPipe().(io.Closer).Close()
		p.mu.Unlock()
		<-drained
		p.screen.Close()
	})
	return p
}

// Send types s on the terminal.
func (p *Term) Send(t testing.TB, s string) {
	t.Helper()
	if _, err := p.Master.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
}

// Expect waits until s has been drawn after what earlier Expects matched.
func (p *Term) Expect(t testing.TB, s string) {
	t.Helper()
	deadline := time.After(Guard)
	for {
		p.mu.Lock()
		i := bytes.Index(p.out[p.seen:], []byte(s))
		if i >= 0 {
			p.seen += i + len(s)
		}
		rest := string(p.out[p.seen:])
		p.mu.Unlock()
		if i >= 0 {
			return
		}
		select {
		case <-p.changed:
		case <-deadline:
			t.Fatalf("%q never drawn; after the last match: %q", s, rest)
		}
	}
}

// WaitSuffix waits until everything drawn so far ends with suffix, and
// returns it.
func (p *Term) WaitSuffix(t testing.TB, suffix string) string {
	t.Helper()
	deadline := time.After(Guard)
	for {
		s := p.Output()
		if strings.HasSuffix(s, suffix) {
			return s
		}
		select {
		case <-p.changed:
		case <-deadline:
			t.Fatalf("output never ended with %q: %q", suffix, s)
		}
	}
}

// Output is everything drawn so far.
func (p *Term) Output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return string(p.out)
}

// State is the terminal's mode now.
func (p *Term) State(t testing.TB) *xterm.State {
	t.Helper()
	st, err := xterm.GetState(p.FD)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// Screen is the text the terminal shows now, row by row (trailing blanks
// cut), as a terminal emulator of the same size draws what was written.
func (p *Term) Screen() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	rows := make([]string, p.screen.Height())
	for y := range rows {
		var b strings.Builder
		for x := 0; x < p.screen.Width(); x++ {
			c := p.screen.CellAt(x, y)
			if c == nil || c.Width == 0 {
				continue // the second cell of a wide character
			}
			if c.Content == "" {
				b.WriteByte(' ')
				continue
			}
			b.WriteString(c.Content)
		}
		rows[y] = strings.TrimRight(b.String(), " ")
	}
	return rows
}

// Cursor is the cursor's column and row on the screen, from 0.
func (p *Term) Cursor() (x, y int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.screen.CursorPosition()
	return c.X, c.Y
}

// Scrolled is the number of rows that have scrolled off the top.
func (p *Term) Scrolled() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.screen.ScrollbackLen()
}

// WaitScreen waits until ok holds for the screen, and returns the screen.
func (p *Term) WaitScreen(t testing.TB, what string, ok func(rows []string) bool) []string {
	t.Helper()
	deadline := time.After(Guard)
	for {
		rows := p.Screen()
		if ok(rows) {
			return rows
		}
		select {
		case <-p.changed:
		case <-deadline:
			t.Fatalf("the screen never showed %s:\n%s", what, strings.Join(rows, "\n"))
		}
	}
}

// ExpectScreen waits until a row of the screen contains s.
func (p *Term) ExpectScreen(t testing.TB, s string) []string {
	t.Helper()
	return p.WaitScreen(t, strconv.Quote(s), func(rows []string) bool {
		for _, r := range rows {
			if strings.Contains(r, s) {
				return true
			}
		}
		return false
	})
}

// Resize changes the terminal's size and tells this process, as the
// terminal would tell the program in its foreground. The screen keeps its
// cells where they are, as xterm does: a row wider than the new width is
// cut.
func (p *Term) Resize(t testing.TB, rows, cols uint16) {
	t.Helper()
	p.resize(t, rows, cols, false)
}

// ResizeReflow is Resize for a terminal that rewraps its rows at the new
// width, as tmux, VTE, iTerm2, kitty and most others do: a row wider than
// cols goes on over the rows below it, the cursor with it, and the rows at
// the top go into the scrollback when the screen is full. Every row is
// taken as ended by a line break (the programs under test never let the
// terminal wrap a row), so a widening moves nothing.
func (p *Term) ResizeReflow(t testing.TB, rows, cols uint16) {
	t.Helper()
	p.resize(t, rows, cols, true)
}

func (p *Term) resize(t testing.TB, rows, cols uint16, reflow bool) {
	t.Helper()
	if err := unix.IoctlSetWinsize(p.FD, unix.TIOCSWINSZ, &unix.Winsize{Row: rows, Col: cols}); err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	if reflow {
		p.reflowLocked(int(rows), int(cols))
	} else {
		p.screen.Resize(int(cols), int(rows))
	}
	p.mu.Unlock()
	if err := unix.Kill(os.Getpid(), unix.SIGWINCH); err != nil {
		t.Fatal(err)
	}
}

// reflowLocked lays the screen's rows out again at cols and draws them on
// a screen of rows by cols, the cursor where its cell went.
func (p *Term) reflowLocked(rows, cols int) {
	type cell struct {
		s string
		w int
	}
	cur := p.screen.CursorPosition()
	var lines [][]cell
	newY, newX := 0, 0
	last := 0 // the last line that holds anything, or the cursor
	for y := 0; y < p.screen.Height(); y++ {
		var cells []cell
		for x := 0; x < p.screen.Width(); x++ {
			c := p.screen.CellAt(x, y)
			if c == nil || c.Width == 0 {
				continue
			}
			s := c.Content
			if s == "" {
				s = " "
			}
			cells = append(cells, cell{s, c.Width})
		}
		for len(cells) > 0 && cells[len(cells)-1].s == " " {
			cells = cells[:len(cells)-1]
		}
		// The row rewrapped: a wide cell that does not fit starts the
		// next piece.
		piece, col, x := []cell{}, 0, 0
		if y == cur.Y && cur.X == 0 {
			newY, newX = len(lines), 0
		}
		for _, c := range cells {
			if col+c.w > cols {
				lines = append(lines, piece)
				piece, col = []cell{}, 0
			}
			piece = append(piece, c)
			col += c.w
			x += c.w
			if y == cur.Y && x == cur.X {
				newY, newX = len(lines), col
				if col >= cols {
					newY, newX = len(lines)+1, 0
				}
			}
		}
		if y == cur.Y && cur.X > x {
			// The cursor after the row's end: as far past it as it was.
			newY, newX = len(lines)+(col+cur.X-x)/cols, (col+cur.X-x)%cols
		}
		lines = append(lines, piece)
		if len(cells) > 0 || y == cur.Y {
			last = max(len(lines)-1, newY)
		}
	}
	lines = lines[:min(last+1, len(lines))]
	for len(lines) <= newY {
		lines = append(lines, nil)
	}
	var b strings.Builder
	b.WriteString("\x1b[H\x1b[J")
	for i, l := range lines {
		if i > 0 {
			b.WriteString("\r\n")
		}
		for _, c := range l {
			b.WriteString(c.s)
		}
	}
	gone := max(0, len(lines)-rows) // scrolled off the top
	fmt.Fprintf(&b, "\x1b[%d;%dH", newY-gone+1, newX+1)
	p.screen.Resize(cols, rows)
	p.screen.Write([]byte(b.String()))
}
