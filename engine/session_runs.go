package engine

// A stored session's run records (shell commands, tasks) read without
// owning it: which session they belong to, and whether one without an end
// still runs. Used by shell.go and task_read.go.

import (
	"fmt"
	"time"

	"cairn/engine/internal/owner"
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
// commands, tasks), whether one without an end still runs (owner.Runs).
func (w *Workspace) runOwner(session string) *owner.Runs {
	return owner.NewRuns(func() (int, time.Time) {
		var opened time.Time
		if r, err := readRecord(w.s.fsys, w.dir, session); err == nil {
			opened = r.OpenedAt.Time
		}
		return w.ownerPID(session), opened
	})
}
