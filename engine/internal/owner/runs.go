package owner

import (
	"os"
	"time"
)

// Runs is the owner of a session as its run records (shell commands,
// tasks) need it: the pid of the process owning it and when that process
// opened it, looked up once, on first need.
type Runs struct {
	look     func() (pid int, openedAt time.Time)
	looked   bool
	pid      int
	openedAt time.Time
}

// NewRuns is the Runs of a session whose owner look finds.
func NewRuns(look func() (pid int, openedAt time.Time)) *Runs { return &Runs{look: look} }

// Running reports whether a record started by process pid at time at
// without an end still runs. here asks this process's own log of the
// session: known says whether the session is open in this store, and
// running then whether the record is running there. Otherwise it runs
// while process pid owns the session and opened it before the record
// started: a start from before the owner opened the session is not its
// own, even under the same pid (a pid reused after a crash).
func (o *Runs) Running(pid int, at time.Time, here func() (running, known bool)) bool {
	if pid == os.Getpid() {
		if running, known := here(); known {
			return running
		}
	}
	if !o.looked {
		o.pid, o.openedAt = o.look()
		o.looked = true
	}
	return pid > 0 && pid == o.pid && !o.openedAt.After(at)
}
