package shellproc

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// WaitDelay is how long Run waits for the output pipes once the shell has
// exited (a background child may hold them) or been killed.
const WaitDelay = 2 * time.Second

// Output is what a line run by Run printed and how it ended.
type Output struct {
	// Stdout and Stderr keep the end of each stream, All the end of both
	// as they came.
	Stdout, Stderr, All TailBuffer
	// Exit is the shell's exit status (128+N when killed by signal N).
	Exit int
	// Err: the command could not be run or waited for (Exit is -1).
	Err error
}

// Run runs line with sh in folder dir, started by f, in a process group of
// its own led by a shell that kills the group when this process dies
// (Command). Its output goes to stdout and stderr (either nil) and to the
// returned buffers, which keep the last keep bytes of each stream and the
// last keepAll of both. Stdin is the null device: the line runs in its
// own process group, where reading the terminal would stop it.
func Run(ctx context.Context, f *Forker, line, dir string, stdout, stderr io.Writer, keep, keepAll int64) (out Output) {
	out.Stdout.max, out.Stderr.max = keep, keep
	out.All.max = keepAll
	cmd := Command(ctx, "/bin/sh", line)
	cmd.Dir = dir
	// Both streams' copiers write under one lock: they share the whole
	// output, and often the caller's writer (the REPL's screen).
	so, se := []io.Writer{&out.Stdout, &out.All}, []io.Writer{&out.Stderr, &out.All}
	if stdout != nil {
		so = append(so, stdout)
	}
	if stderr != nil {
		se = append(se, stderr)
	}
	var mu sync.Mutex
	cmd.Stdout = &lockedWriter{mu: &mu, w: io.MultiWriter(so...)}
	cmd.Stderr = &lockedWriter{mu: &mu, w: io.MultiWriter(se...)}
	cmd.WaitDelay = WaitDelay
	err := f.Start(cmd)
	if err == nil {
		err = cmd.Wait()
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		out.Exit = exitStatus(ee)
	case errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil:
		// It exited; a child it left running held the output open.
		out.Exit = cmd.ProcessState.ExitCode()
	default:
		out.Exit, out.Err = -1, err
	}
	return out
}

// exitStatus is the shell's exit code, or 128+N when signal N killed it
// (as a shell reports it).
func exitStatus(ee *exec.ExitError) int {
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ee.ExitCode()
}

// TailBuffer keeps the last max bytes written to it, and counts them all.
type TailBuffer struct {
	max   int64
	buf   []byte
	total int64 // bytes written
}

func (t *TailBuffer) Write(p []byte) (int, error) {
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

// Bytes is the last max bytes written.
func (t *TailBuffer) Bytes() []byte {
	if int64(len(t.buf)) > t.max {
		return t.buf[int64(len(t.buf))-t.max:]
	}
	return t.buf
}

// Dropped is how many bytes written before Bytes it did not keep.
func (t *TailBuffer) Dropped() int64 { return t.total - int64(len(t.Bytes())) }

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
