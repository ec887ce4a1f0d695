package term

import (
	"errors"
	"io"
	"strings"
	"sync"

	xterm "golang.org/x/term"
)

// Editor reads lines from a terminal with editing, prompt history and
// bound keys. ReadLine is called from one goroutine at a time; AddHistory,
// Bind, SetLeader, Println and Close may be called from any goroutine, also
// while ReadLine waits for keys.
type Editor struct {
	keys *Keys
	out  io.Writer

	mu      sync.Mutex
	hist    *historyWalk
	binds   map[string]string // a key name, or the leader and a key, to a line
	leader  string
	pending string    // the text a bound key left, shown by the next ReadLine
	cur     *lineEdit // the ReadLine under way
	closed  bool
	typed   string // the text of the ReadLine under way (Typed)
	used    bool   // the last ReadLine's text was submitted or discarded (Used)
	kills   []string
}

// Typed is the text being edited by the ReadLine under way, not yet
// submitted, or between two ReadLines the text a bound key left for the
// next one: "" when there is none. Safe to call from another goroutine (a
// signal handler keeping it as the session's draft).
func (e *Editor) Typed() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.typed == "" {
		return e.pending
	}
	return e.typed
}

// Used reports whether the last ReadLine ended with the person done with
// its text: submitted with Enter, discarded with Ctrl-C, or emptied before
// Ctrl-D. It is false when the text was kept for the next ReadLine (a
// bound key) or when the ReadLine was ended from outside (Close, the input
// gone).
func (e *Editor) Used() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.used
}

// NewEditor returns an editor reading keys from keys (the terminal's, kept
// by the caller for every prompt and picker, so that no key typed ahead is
// lost between them) and drawing on out. history is the prompt history,
// oldest first. The terminal is in raw mode only while ReadLine runs.
func NewEditor(keys *Keys, out io.Writer, history []string) *Editor {
	return &Editor{keys: keys, out: out, hist: newHistoryWalk(history),
		binds: map[string]string{}, leader: DefaultLeader}
}

// DefaultLeader is the leader key until SetLeader changes it.
const DefaultLeader = "ctrl+x"

// Bind makes pressing keys submit line at once, whatever is typed: ReadLine
// returns line. keys is a key name as the terminal library spells it
// ("alt+z", "f9", "ctrl+x"), "leader" and a key name after a space
// ("leader z": the leader key, then z), or two key names ("esc esc": Esc
// pressed twice). The typed text (and a history walk under way) is kept
// and shown again by the next ReadLine. An empty line removes the binding.
func (e *Editor) Bind(keys, line string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if line == "" {
		delete(e.binds, keys)
		return
	}
	e.binds[keys] = line
}

// SetLeader makes k (a key name, "ctrl+x" by default) the leader key of the
// "leader K" bindings.
func (e *Editor) SetLeader(k string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.leader = k
}

// Prefill puts text in the input line of the next ReadLine, to edit
// before sending it (the prompt a fork or revert hands back).
func (e *Editor) Prefill(text string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.pending = text
}

// AddHistory appends s to the prompt history as its newest entry. Empty
// lines and a repeat of the newest entry are not added. A history walk
// under way keeps the entry it shows. ReadLine never adds by itself: the
// caller adds what it accepted.
func (e *Editor) AddHistory(s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.hist.add(s)
}

// ReadLine shows prompt and returns the text submitted with Enter, or the
// line bound to a pressed key. The text can hold several lines: a paste
// stays one text, and Alt+Enter or Ctrl-J starts a new line by hand. Ctrl-D
// on an empty line returns io.EOF; Ctrl-C discards the text and returns
// ErrInterrupted. The terminal is in raw mode while it runs and is restored
// before it returns; what is left on the screen is the prompt and the text.
func (e *Editor) ReadLine(prompt string) (string, error) {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return "", io.EOF
	}
	run, err := e.keys.begin(e.out)
	if err != nil {
		e.mu.Unlock()
		if errors.Is(err, errKeysClosed) {
			return "", io.EOF
		}
		return "", err
	}
	l := &lineEdit{e: e, run: run, prompt: cleanText(strings.ReplaceAll(prompt, "\n", " ")),
		scr: &inline{out: e.out}, quit: make(chan struct{}), ended: make(chan struct{}),
		printed: make(chan struct{}, 1)}
	l.promptW = textWidth(l.prompt)
	l.buf.kills = e.kills
	l.buf.set(e.pending)
	e.typed, e.pending, e.used = l.buf.s, "", false
	e.cur = l
	e.mu.Unlock()

	line, err := l.loop()

	e.mu.Lock()
	e.cur, e.typed = nil, ""
	e.kills = l.buf.kills
	e.used = l.used
	closed := e.closed
	rest := l.prints
	l.prints = nil
	e.mu.Unlock()
	// Lines Println queued as the ReadLine ended go below it.
	for _, t := range rest {
		l.scr.printAbove(t)
	}
	if l.run != nil {
		l.run.end()
	}
	close(l.ended) // after end: Close's restore must come last
	if closed {
		return "", io.EOF
	}
	return line, err
}

// size is the window's size: out's when it is a terminal, else the size of
// the terminal the keys come from, else 80 by 24.
func (e *Editor) size() (cols, rows int) {
	if c, r := screenSize(e.out); c > 0 {
		return c, r
	}
	if c, r, err := xterm.GetSize(e.keys.fd); err == nil && c > 0 {
		return c, r
	}
	return 80, 24
}

// Close ends a ReadLine under way (it returns io.EOF) and closes the
// editor's keys, which restores the terminal mode found by OpenKeys.
// ReadLine restores the mode on every return already; Close is for leaving
// on a signal.
func (e *Editor) Close() error {
	e.mu.Lock()
	e.closed = true
	l := e.cur
	e.mu.Unlock()
	if l != nil {
		// Waits for the ReadLine's keys to end too, so its keyboard
		// modes are reset and its restore comes before the one below.
		l.stop()
		<-l.ended
	}
	return e.keys.Close()
}

// SetPrompt changes the prompt of the ReadLine under way, which is drawn
// again with it (a status that changed while the person types). It is
// safe from any goroutine; it reports false when no ReadLine runs.
func (e *Editor) SetPrompt(prompt string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	l := e.cur
	if l == nil {
		return false
	}
	p := cleanText(strings.ReplaceAll(prompt, "\n", " "))
	l.reprompt = &p
	select {
	case l.printed <- struct{}{}:
	default:
	}
	return true
}

// Println prints text, on lines of its own, above the line being edited,
// which is drawn again below it. It is safe from any goroutine; it reports
// false when no ReadLine runs, and the caller then writes text itself.
func (e *Editor) Println(text string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	l := e.cur
	if l == nil {
		return false
	}
	l.prints = append(l.prints, text)
	select {
	case l.printed <- struct{}{}:
	default:
	}
	return true
}
