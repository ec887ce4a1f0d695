package term

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	xterm "golang.org/x/term"
)

// Keys is the keyboard of one terminal: the one reader of its input for as
// long as the REPL runs, shared by every ReadLine and picker in turn.
//
// A terminal hands over what is typed in bursts, and one burst can hold a
// line's Enter and what follows it (a pasted block of lines, or typing
// faster than a prompt comes back). A program of the terminal library that
// reads its own input throws away what it read past its last key when it
// ends, so each ReadLine or picker running its own program lost those
// keys. Here the programs run with the library's input turned off and take
// their keys from Keys one at a time (keyRun.next): a program that ends
// takes no key after the one that ended it, and the rest stay for the next.
//
// The terminal is read only while a program runs, in raw mode; between
// programs nothing reads it and it is cooked again, so Ctrl-C is SIGINT and
// a command run meanwhile has the terminal to itself. The keys typed then
// are read by the next program.
type Keys struct {
	fd   int
	orig *xterm.State // the mode at OpenKeys; Close puts it back
	// idle is the mode between programs when Quiet set one; nil: the mode
	// each program found.
	idle *xterm.State
	in   *gate
	// events is where the decoder, running for the life of Keys, hands
	// over one key (or paste) at a time; ended is closed once the input
	// has ended and every key was handed over.
	events chan uv.Event
	ended  chan struct{}

	mu     sync.Mutex
	back   []uv.Event // keys taken from events but not used: handed over first
	run    *keyRun    // the program reading keys, nil between programs
	closed bool
}

// OpenKeys starts reading keys from f, which must be a terminal (else
// ErrNotTerminal). Close ends it.
func OpenKeys(f *os.File) (*Keys, error) {
	fd, err := terminalFD(f)
	if err != nil {
		return nil, err
	}
	st, err := xterm.GetState(fd)
	if err != nil {
		return nil, err
	}
	k := &Keys{fd: fd, orig: st, in: newGate(f), events: make(chan uv.Event), ended: make(chan struct{})}
	// The terminal's name only picks a terminfo key table, which the
	// reader does not use unless told to.
	d := uv.NewTerminalReader(k.in, "")
	go func() {
		defer close(k.ended)
		d.StreamEvents(context.Background(), k.events)
	}()
	return k, nil
}

// Close stops reading for good and restores the mode the terminal had at
// OpenKeys. A program running ends with no more keys.
func (k *Keys) Close() error {
	k.mu.Lock()
	if k.closed {
		k.mu.Unlock()
		return nil
	}
	k.closed = true
	run := k.run
	k.mu.Unlock()
	if run != nil {
		run.keyboardOff()
	}
	k.in.close()
	// The decoder hands over what it holds before it ends: taken here,
	// unless a program still running takes it.
	go func() {
		for {
			select {
			case <-k.events:
			case <-k.ended:
				return
			}
		}
	}()
	return xterm.Restore(k.fd, k.orig)
}

// errKeysClosed: Keys were closed before a program could start.
var errKeysClosed = errors.New("term: keyboard closed")

// keyRun is one program's turn at the keys: the terminal is raw and read
// until end. The program asks for one key at a time with next, and says it
// used the key with took; a key it did not use (it ended first) goes back
// to Keys for the next program.
type keyRun struct {
	k    *Keys
	mode *xterm.State // the mode before the run, put back by end
	stop chan struct{}
	out  io.Writer // the terminal, told to report keys unambiguously during the run
	off  sync.Once

	// Under k.mu: inflight is the key next handed over, until took;
	// waiting, a next is waiting for a key (end waits for it to give up);
	// over is set by end.
	inflight uv.Event
	waiting  bool
	over     bool
	idle     *sync.Cond // on k.mu: waiting became false
}

// begin makes the terminal raw and starts reading it. out is the
// terminal's screen: the keyboard modes the terminal library sets when it
// reads keys itself are set on it (the terminals that know them then tell
// apart keys that are otherwise sent alike, such as Ctrl-I and Tab), and
// reset by end.
func (k *Keys) begin(out io.Writer) (*keyRun, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed {
		return nil, errKeysClosed
	}
	// What waits in the terminal now was typed while it was cooked, where
	// Enter becomes a line feed: the gate makes it Enter again. A cooked
	// terminal counts whole lines only, and the rest holds no line feed.
	cooked := queued(k.fd)
	st, err := makeRaw(k.fd)
	if err != nil {
		return nil, err
	}
	if err := k.in.open(cooked); err != nil {
		xterm.Restore(k.fd, st)
		return nil, err
	}
	io.WriteString(out, ansi.SetModifyOtherKeys2+ansi.PushKittyKeyboard(ansi.KittyDisambiguateEscapeCodes))
	r := &keyRun{k: k, mode: st, stop: make(chan struct{}), out: out, idle: sync.NewCond(&k.mu)}
	k.run = r
	return r, nil
}

// keyboardOff resets the keyboard modes begin set, once: at end, or at
// Close when it comes first (a signal: the process leaves).
func (r *keyRun) keyboardOff() {
	r.off.Do(func() { io.WriteString(r.out, ansi.ResetModifyOtherKeys+ansi.PopKittyKeyboard(1)) })
}

// end stops reading, gives back the keys the program took but did not use
// (unused, in the order taken, then a key handed over but not taken), and
// puts the terminal's mode back. It is called once the program has
// returned.
func (r *keyRun) end(unused ...uv.Event) {
	k := r.k
	k.mu.Lock()
	r.over = true
	close(r.stop)
	for r.waiting {
		r.idle.Wait()
	}
	back := append([]uv.Event(nil), unused...)
	if r.inflight != nil {
		back = append(back, r.inflight)
		r.inflight = nil
	}
	k.back = append(back, k.back...)
	closed := k.closed
	if k.run == r {
		k.run = nil
	}
	mode := r.mode
	if k.idle != nil {
		mode = k.idle
	}
	k.mu.Unlock()
	r.keyboardOff()
	k.in.pause()
	if !closed {
		xterm.Restore(k.fd, mode)
	}
}

// Quiet turns the terminal's echo off between programs, until Close: what
// is typed while a command runs is not shown in its output, and the next
// program (the prompt after it) gets it as it would have.
func (k *Keys) Quiet() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed || k.run != nil {
		return nil
	}
	st, err := echoOff(k.fd)
	if err != nil {
		return err
	}
	k.idle = st
	return nil
}

// handOver puts back the mode found at OpenKeys for a program that takes
// the terminal for a while (a suspension, an editor); no program of ours
// runs meanwhile.
func (k *Keys) handOver() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.closed {
		xterm.Restore(k.fd, k.orig)
	}
}

// keyMsg is one key (or paste, or other input event) for the program that
// asked for it with next.
type keyMsg struct{ ev uv.Event }

// inputEndedMsg: the terminal's input has ended (it is gone).
type inputEndedMsg struct{}

// next is the command that waits for the next key. A program has at most
// one next waiting, and asks again only after it took the key.
func (r *keyRun) next() tea.Cmd {
	return func() tea.Msg {
		k := r.k
		k.mu.Lock()
		if r.over {
			k.mu.Unlock()
			return nil
		}
		var ev uv.Event
		if len(k.back) > 0 {
			ev, k.back = k.back[0], k.back[1:]
			r.inflight = ev
			k.mu.Unlock()
			return keyMsg{ev}
		}
		r.waiting = true
		k.mu.Unlock()
		var msg tea.Msg
		select {
		case ev = <-k.events:
		case <-k.ended:
			msg = inputEndedMsg{}
		case <-r.stop:
		}
		k.mu.Lock()
		defer k.mu.Unlock()
		r.waiting = false
		r.idle.Broadcast()
		if ev != nil {
			// Handed over: kept by end if the program is over already.
			r.inflight = ev
			msg = keyMsg{ev}
		}
		return msg
	}
}

// took says the program used the key next handed over, and returns it as
// the terminal library's message (nil for an event the programs ignore:
// key releases, focus, the terminal's answers).
func (r *keyRun) took(m keyMsg) tea.Msg {
	r.k.mu.Lock()
	r.inflight = nil
	r.k.mu.Unlock()
	switch ev := m.ev.(type) {
	case uv.KeyPressEvent:
		return tea.KeyPressMsg(ev)
	case uv.PasteEvent:
		return tea.PasteMsg(ev)
	}
	return nil
}
