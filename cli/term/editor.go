package term

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"unicode"

	xterm "golang.org/x/term"
)

// Editor reads lines from a terminal with editing, prompt history and
// bound keys. ReadLine is called from one goroutine at a time; AddHistory,
// Bind and History may be called from any goroutine, also while ReadLine
// waits for keys.
type Editor struct {
	in   *os.File // nil in tests that feed bytes without a terminal
	fd   int
	orig *xterm.State // the mode at NewEditor; Close puts it back
	out  io.Writer
	dec  *decoder

	mu    sync.Mutex
	hist  *historyWalk
	binds map[Key]string
	buf   lineBuf // kept between ReadLines when a bound key submits
}

// NewEditor returns an editor reading keys from in, which must be a
// terminal (else ErrNotTerminal), and drawing on out. history is the prompt
// history, oldest first. The terminal is in raw mode only while ReadLine
// runs.
func NewEditor(in *os.File, out io.Writer, history []string) (*Editor, error) {
	fd, err := terminalFD(in)
	if err != nil {
		return nil, err
	}
	st, err := xterm.GetState(fd)
	if err != nil {
		return nil, err
	}
	e := newEditor(in, out, history)
	e.fd, e.orig = fd, st
	return e, nil
}

func newEditor(in io.Reader, out io.Writer, history []string) *Editor {
	e := &Editor{out: out, dec: newDecoder(in), hist: newHistoryWalk(history), binds: map[Key]string{}}
	if f, ok := in.(*os.File); ok {
		e.in = f
	}
	return e
}

// Bind makes pressing k submit line at once, whatever is typed: ReadLine
// returns line. The typed text (and a history walk under way) is kept and
// shown again by the next ReadLine. An empty line removes the binding.
// KeyRune and KeyUnknown cannot be bound.
func (e *Editor) Bind(k Key, line string) {
	if k == KeyRune || k == KeyUnknown {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if line == "" {
		delete(e.binds, k)
		return
	}
	e.binds[k] = line
}

// AddHistory appends s to the prompt history as its newest entry. Empty
// lines and a repeat of the newest entry are not added. A history walk
// under way keeps the entry it shows. ReadLine never adds by itself: the
// caller adds what it accepted as a prompt.
func (e *Editor) AddHistory(s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.hist.add(s)
}

// History returns the prompt history, oldest first.
func (e *Editor) History() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.hist.list()
}

// ReadLine shows prompt and returns the line submitted with Enter (without
// the newline), or the line bound to a pressed key. Ctrl-D on an empty
// line returns io.EOF; Ctrl-C discards the line and returns
// ErrInterrupted. The terminal is in raw mode while it runs and is
// restored before it returns.
func (e *Editor) ReadLine(prompt string) (string, error) {
	if e.in != nil {
		old, err := xterm.MakeRaw(e.fd)
		if err != nil {
			return "", err
		}
		defer xterm.Restore(e.fd, old)
	}
	return e.readLine(prompt)
}

// readLine is ReadLine without the terminal mode: keys come from e.dec.
func (e *Editor) readLine(prompt string) (string, error) {
	e.redraw(prompt)
	for {
		ev, err := e.dec.next()
		if err != nil {
			e.write("\r\n")
			return "", err
		}
		line, done, err := e.key(ev)
		if done {
			if err == nil {
				e.write("\r" + prompt + drawn(line) + "\x1b[K")
			} else if err == ErrInterrupted {
				e.write("^C")
			}
			e.write("\r\n")
			return line, err
		}
		e.redraw(prompt)
	}
}

// key applies one keystroke to the line. done reports that ReadLine
// returns line and err.
func (e *Editor) key(ev event) (line string, done bool, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	b := &e.buf
	if bound, ok := e.binds[ev.key]; ok {
		return bound, true, nil
	}
	switch ev.key {
	case KeyRune:
		b.insert(ev.r)
	case KeyEnter:
		line = b.String()
		b.set("")
		e.hist.leave()
		return line, true, nil
	case KeyCtrlC:
		b.set("")
		e.hist.leave()
		return "", true, ErrInterrupted
	case KeyCtrlD:
		if len(b.r) == 0 {
			e.hist.leave()
			return "", true, io.EOF
		}
		b.del()
	case KeyBackspace:
		b.backspace()
	case KeyDelete:
		b.del()
	case KeyLeft:
		b.left()
	case KeyRight:
		b.right()
	case KeyHome:
		b.home()
	case KeyEnd:
		b.end()
	case KeyCtrlU:
		b.killStart()
	case KeyCtrlK:
		b.killEnd()
	case KeyCtrlW:
		b.killWord()
	case KeyUp:
		if s, ok := e.hist.up(b.String()); ok {
			b.set(s)
		}
	case KeyDown:
		if s, ok := e.hist.down(); ok {
			b.set(s)
		}
	}
	return "", false, nil
}

// redraw draws the prompt and the line and puts the cursor in place.
func (e *Editor) redraw(prompt string) {
	e.mu.Lock()
	text, back := drawn(e.buf.String()), len(e.buf.r)-e.buf.pos
	e.mu.Unlock()
	s := "\r" + prompt + text + "\x1b[K"
	if back > 0 {
		s += fmt.Sprintf("\x1b[%dD", back)
	}
	e.write(s)
}

// write draws on the terminal. A failing terminal shows in the next read.
func (e *Editor) write(s string) { io.WriteString(e.out, s) }

// Close restores the terminal mode found by NewEditor. ReadLine restores
// it on every return already; Close is for leaving on a signal or a panic.
func (e *Editor) Close() error {
	if e.in == nil || e.orig == nil {
		return nil
	}
	return xterm.Restore(e.fd, e.orig)
}

// drawn is the line being edited as drawn: one cell per rune, control
// characters as '?' (not display's escapes, which take several cells), so
// that text from the history cannot move the cursor.
func drawn(s string) string {
	return strings.Map(func(r rune) rune {
		if !unicode.IsPrint(r) && r != ' ' {
			return '?'
		}
		return r
	}, s)
}
