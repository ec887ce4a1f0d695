package engine

import (
	"io"
	"os/exec"
	"sync"
	"syscall"
)

// exitStatus is the shell's exit code, or 128+N when signal N killed it
// (as a shell reports it).
func exitStatus(ee *exec.ExitError) int {
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ee.ExitCode()
}

// tailBuffer keeps the last max bytes written to it, and counts them all.
type tailBuffer struct {
	max   int64
	buf   []byte
	total int64 // bytes written
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	t.total += int64(n)
	if int64(len(p)) >= t.max {
		t.buf = append(t.buf[:0], p[int64(len(p))-t.max:]...)
		return n, nil
	}
	t.buf = append(t.buf, p...)
	if int64(len(t.buf)) > 2*t.max {
		t.buf = append(t.buf[:0], t.buf[int64(len(t.buf))-t.max:]...)
	}
	return n, nil
}

// bytes is the last max bytes written.
func (t *tailBuffer) bytes() []byte {
	if int64(len(t.buf)) > t.max {
		return t.buf[int64(len(t.buf))-t.max:]
	}
	return t.buf
}

// tail is what the buffer kept, after the bytes it did not keep.
func (t *tailBuffer) tail() shellTail {
	b := t.bytes()
	return shellTail{Bytes: b, Dropped: t.total - int64(len(b))}
}

// lockedWriter serializes writes from stdout's and stderr's copiers.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
