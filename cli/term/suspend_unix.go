//go:build aix || darwin || dragonfly || freebsd || linux || netbsd || openbsd || solaris || zos

package term

import (
	"os"
	"os/signal"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// suspend stops the process group, as Ctrl-Z typed at a cooked terminal
// does, and returns once it is continued (the shell's fg), or at once when
// stopping it would leave nobody to continue it (stoppable), or when quit
// is closed. The stop comes asynchronously, so it waits for the SIGCONT
// rather than trusting kill to have stopped it on return.
func suspend(quit <-chan struct{}) {
	if !stoppable() {
		return
	}
	cont := make(chan os.Signal, 1)
	signal.Notify(cont, unix.SIGCONT)
	defer signal.Stop(cont)
	if err := unix.Kill(0, unix.SIGTSTP); err != nil {
		return
	}
	select {
	case <-cont:
	case <-quit:
	}
}

// stoppable reports whether a stop of this process's group would be
// honoured: a group is stopped by SIGTSTP only when a member's parent is
// in another group of the same session (a shell with job control, which
// continues it), else the kernel drops the signal. This process and its
// ancestors within the group are looked at.
func stoppable() bool {
	pgrp := unix.Getpgrp()
	sid, err := unix.Getsid(0)
	if err != nil {
		return false
	}
	pid := os.Getpid()
	for range 64 {
		ppid := parentOf(pid)
		if ppid <= 1 {
			return false
		}
		ppg, err := unix.Getpgid(ppid)
		if err != nil {
			return false
		}
		if psid, err := unix.Getsid(ppid); err != nil || psid != sid {
			return false
		}
		if ppg != pgrp {
			return true
		}
		pid = ppid
	}
	return false
}

// parentOf is the parent of process pid: this process's from the system,
// another's from /proc where there is one (0 when unknown).
func parentOf(pid int) int {
	if pid == os.Getpid() {
		return os.Getppid()
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// pid (comm) state ppid ...; comm may hold blanks and parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

// notifyResize has the window's resizes (SIGWINCH) sent on ch.
func notifyResize(ch chan os.Signal) { signal.Notify(ch, unix.SIGWINCH) }
