package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"cairn/cli/term"
	"cairn/engine"
)

// A REPL that is told to end (SIGTERM, or SIGHUP when its terminal goes
// away) leaves as /exit does: it hands the terminal back first (the mode
// it had at the start), keeps the line being typed as the session's draft
// (keepTyped), then closes its session: the journal and the record
// are made durable and ownership is given up, so the record shows every turn
// the journal holds. It prints the resume line when a record was written,
// closes the store (an ephemeral one, or the throwaway one of an unrecorded
// REPL, is removed with everything in it), and exits with 128 plus the
// signal's number, as the signal would have. (SIGKILL cannot be caught: a
// listing rebuilds the record of a session whose owner died, and the next
// cairn to start removes an ephemeral root whose owner died.)

// openSession is the REPL's current session, for the signal handler: the
// REPL's own goroutine changes it, the handler reads it.
type openSession struct {
	mu    sync.Mutex
	store *engine.Store // closed by closeStore or by the handler, whichever is first
	sess  *engine.Session
	ed    *term.Editor // the line editor, whose terminal is handed back first
	pick  func()       // ends the picker under way and waits for it, or nil
	keys  *term.Keys   // the terminal's keys, closed to put its first mode back
}

func (o *openSession) setKeys(k *term.Keys) {
	o.mu.Lock()
	o.keys = k
	o.mu.Unlock()
}

func (o *openSession) setPicker(stop func()) {
	o.mu.Lock()
	o.pick = stop
	o.mu.Unlock()
}

func (o *openSession) setEditor(ed *term.Editor) {
	o.mu.Lock()
	o.ed = ed
	o.mu.Unlock()
}

func (o *openSession) set(s *engine.Session) {
	o.mu.Lock()
	o.sess = s
	o.mu.Unlock()
}

// closeOnSignal closes the current session and exits when SIGTERM or SIGHUP
// (and SIGINT, when interrupt says so) arrives, until stop is called.
func (r *repl) closeOnSignal(interrupt bool) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM, syscall.SIGHUP)
	if interrupt {
		signal.Notify(ch, os.Interrupt)
	}
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			// Held to the exit, so the REPL starts no other session.
			r.open.mu.Lock()
			if r.open.pick != nil {
				r.open.pick() // the picker hands the terminal back
			}
			typed, editing := "", r.open.ed != nil
			if editing {
				typed = r.open.ed.Typed()
				r.open.ed.Close() // ends a ReadLine, restores the terminal
			}
			st := r.open.store
			if r.open.keys != nil {
				r.open.keys.Close() // the mode the terminal had at the start
			}
			if s := r.open.sess; s != nil {
				keepTyped(s, typed, editing)
				s.Close() // waits for a turn or a file tool under way
				if s.Recorded() && st != nil && !st.Ephemeral() {
					fmt.Fprintf(r.out, "cairn --resume %s\n", s.ID())
				}
			}
			if st != nil {
				if err := st.Close(); err != nil {
					fmt.Fprintln(r.errw, "cairn:", userError(err))
				}
			}
			code := 1
			if n, ok := sig.(syscall.Signal); ok {
				code = 128 + int(n)
			}
			os.Exit(code)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

// keepTyped keeps the prompt being typed when the REPL is told to end as
// the session's draft (seed 000: a typed draft is worth keeping): resuming
// puts it back in the input line. A draft the session holds already (the
// one the line started with) is not written again. editing says the text
// came from a line editor: an input line the person emptied clears the
// draft it was given, which would otherwise come back on every resume.
func keepTyped(s *engine.Session, typed string, editing bool) {
	ctx := context.Background()
	if strings.TrimSpace(typed) == "" {
		if editing {
			s.SetDraft(ctx, "") // nothing to clear: nothing is written
		}
		return
	}
	if d, _, err := s.Draft(ctx); err == nil && d == typed {
		return
	}
	s.SetDraft(ctx, typed) // best effort: the process is ending
}
