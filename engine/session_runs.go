package engine

// A stored session's run records (shell commands, tasks) read without
// owning it: which session they belong to, and whether one without an end
// still runs. Used by shell.go and task_read.go.

import (
	"fmt"
	"os"

	"cairn/internal/vfs"
)

// checkSession refuses a session id that is not one, or names no session.
func (w *Workspace) checkSession(session string) error {
	if !validSessionID(session) {
		return fmt.Errorf("%w: %q is not a session id", ErrBadInput, session)
	}
	if _, err := w.s.fsys.Stat(itemsName(w.dir, session)); err != nil {
		if vfs.IsNotExist(err) {
			return fmt.Errorf("%w: %s in %s", ErrNotFound, session, w.path)
		}
		return err
	}
	return nil
}

// runOwner answers, for the records a session's owner writes (shell
// commands, tasks), whether one without an end still runs.
func (w *Workspace) runOwner(session string) *runOwner {
	return &runOwner{w: w, session: session}
}

// runOwner is the owner of a session as its run records need it: the pid
// of the process owning it and when that process opened it, looked up once.
type runOwner struct {
	w        *Workspace
	session  string
	looked   bool
	pid      int
	openedAt Time
}

// running reports whether a record started by process pid at time at
// without an end still runs. here asks this process's own log of the
// session: known says whether the session is open in this store, and
// running then whether the record is running there. Otherwise it runs
// while process pid owns the session and opened it before the record
// started: a start from before the owner opened the session is not its
// own, even under the same pid (a pid reused after a crash).
func (o *runOwner) running(pid int, at Time, here func() (running, known bool)) bool {
	if pid == os.Getpid() {
		if running, known := here(); known {
			return running
		}
	}
	if !o.looked {
		o.pid, o.looked = o.w.ownerPID(o.session), true
		if r, err := readRecord(o.w.s.fsys, o.w.dir, o.session); err == nil {
			o.openedAt = r.OpenedAt
		}
	}
	return pid > 0 && pid == o.pid && !o.openedAt.After(at.Time)
}
