package cli

import (
	"os"
	"os/signal"
	"sync"
	"syscall"

	"cairn/engine"
)

// A REPL that is told to end (SIGTERM, or SIGHUP when its terminal goes
// away) closes its session before it exits, as leaving with /exit does: the
// journal and the record are made durable and ownership is given up, so the
// record shows every turn the journal holds. It then exits with 128 plus the
// signal's number, as the signal would have. (SIGKILL cannot be caught: a
// listing rebuilds the record of a session whose owner died.)

// openSession is the REPL's current session, for the signal handler: the
// REPL's own goroutine changes it, the handler reads it.
type openSession struct {
	mu   sync.Mutex
	sess *engine.Session
}

func (o *openSession) set(s *engine.Session) {
	o.mu.Lock()
	o.sess = s
	o.mu.Unlock()
}

// closeOnSignal closes the current session and exits when SIGTERM or SIGHUP
// arrives, until stop is called.
func (r *repl) closeOnSignal() (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			// Held to the exit, so the REPL starts no other session.
			r.open.mu.Lock()
			if s := r.open.sess; s != nil {
				s.Close() // waits for a turn or a file tool under way
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
