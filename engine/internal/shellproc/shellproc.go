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
// ends, not the process: Start forks every line from one goroutine locked
// to its own thread, which never ends before the process does.
package shellproc

import (
	"context"
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
// killed whole when ctx ends; start it with Start.
func Command(ctx context.Context, shell, line string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, shell, "-c", reaper, "sh", line)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	deathSignal(cmd.SysProcAttr)
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	return cmd
}

var (
	startOnce sync.Once
	starts    chan startReq
)

type startReq struct {
	cmd  *exec.Cmd
	done chan error
}

// Start starts cmd from the one thread that forks every line, which lives
// as long as the process: its end is what sends the lines' shells their
// parent-death signal.
func Start(cmd *exec.Cmd) error {
	startOnce.Do(func() {
		starts = make(chan startReq)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with the process
			for r := range starts {
				r.done <- r.cmd.Start()
			}
		}()
	})
	r := startReq{cmd: cmd, done: make(chan error, 1)}
	starts <- r
	return <-r.done
}
