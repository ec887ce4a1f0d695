// Package shellproc starts the shell lines a session runs so that they
// die with the process that started them.
//
// A line runs as `sh -c LINE` did, in a process group of its own (a cancel
// kills the whole group: a pipeline, the subshells and children it
// started). What a kill -9 of cairn would leave running, changing files
// after the line's record was closed, is taken care of by a small reaper:
// the shell that leads the group runs the line as a job and waits for it,
// with a trap that kills the whole group on SIGTERM; the kernel sends it
// SIGTERM when cairn dies, whatever kills it (a parent-death signal,
// Linux). A line that ends by itself ends the shell as before, with its
// exit status, and leaves the children it started in the background
// running, as sh -c does.
//
// The parent-death signal is sent when the thread that forked the shell
// ends, not the process: a Forker forks every line from one goroutine
// locked to its own thread, which ends only when the Forker is closed.
package shellproc

import (
	"context"
	"errors"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// reaper is the script of the shell that leads a line's group: the line is
// its first argument, run with none (shift) so that $1 and $# say what
// they say in sh -c LINE, as a job, so that SIGTERM interrupts the wait
// at once; the trap kills the group, the shell included. The line's job
// does not inherit the trap.
const reaper = `trap 'kill -9 0' TERM HUP; eval "shift;$1" & wait $!`

// Command is the command that runs line with sh in its own process group,
// killed whole when ctx ends; start it with a Forker.
func Command(ctx context.Context, shell, line string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, shell, "-c", reaper, "sh", line)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	deathSignal(cmd.SysProcAttr)
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	return cmd
}

// Forker forks lines from one goroutine locked to its own thread, which
// lives until Close: that thread's end is what sends the shells of the
// lines it started their parent-death signal, so they die then too. The
// zero Forker is ready to use.
type Forker struct {
	mu     sync.RWMutex
	reqs   chan startReq // nil until the first Start
	closed bool
}

type startReq struct {
	cmd  *exec.Cmd
	done chan error
}

// ErrClosed is returned by Start after Close.
var ErrClosed = errors.New("shellproc: closed: no line starts")

// Start starts cmd from the Forker's thread.
func (f *Forker) Start(cmd *exec.Cmd) error {
	f.mu.RLock()
	if f.reqs == nil && !f.closed {
		f.mu.RUnlock()
		f.mu.Lock()
		if f.reqs == nil && !f.closed {
			f.reqs = make(chan startReq)
			go fork(f.reqs)
		}
		f.mu.Unlock()
		f.mu.RLock()
	}
	defer f.mu.RUnlock()
	if f.closed {
		return ErrClosed
	}
	r := startReq{cmd: cmd, done: make(chan error, 1)}
	f.reqs <- r
	return <-r.done
}

// Close ends the Forker's thread: the lines it started that still run
// are killed, each with its group, and no line starts after it.
func (f *Forker) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.closed && f.reqs != nil {
		close(f.reqs)
	}
	f.closed = true
}

// fork starts the commands it is sent, on a thread of its own that ends
// when reqs is closed.
func fork(reqs chan startReq) {
	runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
	for r := range reqs {
		r.done <- r.cmd.Start()
	}
}
