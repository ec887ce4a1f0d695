// Package ptytest is a pseudo-terminal for tests: the code under test gets
// the terminal's tty, the test types on the master side and waits for what
// is drawn. Every wait is bounded by Guard, which only stops a hung test;
// nothing asserts how long anything takes.
package ptytest

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

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
	p := &Term{Master: m, TTY: s, FD: fd, changed: make(chan struct{}, 1)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, err := m.Read(buf)
			p.mu.Lock()
			p.out = append(p.out, buf[:n]...)
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
