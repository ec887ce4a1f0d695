package term

import (
	"errors"
	"io"
	"os"
	"sync"

	"github.com/muesli/cancelreader"
)

// gate is the terminal's input as the key decoder reads it: a read waits
// while the gate is shut, and reads the terminal while it is open. Shutting
// it (pause) interrupts a read that waits for the terminal, without taking
// any of its bytes, and returns once no read is under way, so that nothing
// reads the terminal between programs.
type gate struct {
	f *os.File

	mu      sync.Mutex
	cond    *sync.Cond
	cr      cancelreader.CancelReader // while open
	reading bool                      // a read of cr is under way
	closed  bool
	// cooked is how many bytes still to read were typed while the
	// terminal was cooked, its Enter turned into a line feed: each line
	// feed in them is read as the carriage return Enter sends when raw
	// (Ctrl-J typed while cooked ends a line as well).
	cooked int
}

func newGate(f *os.File) *gate {
	g := &gate{f: f}
	g.cond = sync.NewCond(&g.mu)
	return g
}

// Read reads the terminal once the gate is open; io.EOF once it is closed.
func (g *gate) Read(b []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for {
		for g.cr == nil && !g.closed {
			g.cond.Wait()
		}
		if g.closed {
			return 0, io.EOF
		}
		cr := g.cr
		g.reading = true
		g.mu.Unlock()
		n, err := cr.Read(b)
		g.mu.Lock()
		g.reading = false
		g.cond.Broadcast()
		if g.cooked > 0 && n > 0 {
			m := min(n, g.cooked)
			for i, c := range b[:m] {
				if c == '\n' {
					b[i] = '\r'
				}
			}
			g.cooked -= m
		}
		if errors.Is(err, cancelreader.ErrCanceled) {
			if n > 0 {
				return n, nil
			}
			continue // shut while waiting: wait for the next opening
		}
		return n, err
	}
}

// open lets reads through; the first cooked bytes read were typed while
// the terminal was cooked.
func (g *gate) open(cooked int) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed || g.cr != nil {
		return nil
	}
	cr, err := cancelreader.NewReader(g.f)
	if err != nil {
		return err
	}
	g.cr, g.cooked = cr, cooked
	g.cond.Broadcast()
	return nil
}

// pause shuts the gate and waits until no read is under way.
func (g *gate) pause() {
	g.mu.Lock()
	defer g.mu.Unlock()
	cr := g.cr
	if cr == nil {
		return
	}
	g.cr = nil
	cr.Cancel()
	for g.reading {
		g.cond.Wait()
	}
	cr.Close()
}

// close shuts the gate for good: reads end with io.EOF.
func (g *gate) close() {
	g.pause()
	g.mu.Lock()
	g.closed = true
	g.cond.Broadcast()
	g.mu.Unlock()
}
