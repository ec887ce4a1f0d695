package engine

import (
	"errors"
	"fmt"

	"cairn/engine/internal/owner"
	"cairn/engine/internal/remote"
	"cairn/internal/vfs"
)

// Ownership: a process that has a session open for writing holds an
// exclusive flock on sessions/<id>.lock and leaves a hint, owners/<id>;
// package owner draws both and takes them.

func ownersName(dir, id string) string { return owner.Hint(dir, id) }

// ownerBrief is the word after the pid in the lock file of a brief owner
// (SessionOptions.Brief). Part of the format.
const ownerBrief = owner.BriefWord

// acquire takes ownership of session id, or returns a *BusyError.
func (w *Workspace) acquire(id string) (vfs.Lock, error) { return w.acquireAs(id, false) }

// acquireAs takes ownership of session id as a brief owner or not, or
// returns a *BusyError (owner.Acquire).
func (w *Workspace) acquireAs(id string, brief bool) (vfs.Lock, error) {
	return w.take(id, brief, true)
}

// take takes ownership of session id; note says to note it in the record
// of changed sessions when a remote is set. A pull alone leaves it out:
// what it writes came from the remote, and a line per session pulled
// would cost a sync a line each.
func (w *Workspace) take(id string, brief, note bool) (vfs.Lock, error) {
	l, err := owner.Acquire(w.s.fsys, w.dir, id, brief)
	var busy *owner.Busy
	if errors.As(err, &busy) {
		return nil, &BusyError{ID: id, PID: busy.PID, Brief: busy.Brief}
	}
	if err != nil {
		return nil, fmt.Errorf("engine: session %s cannot be written (its lock): %w", id, err)
	}
	// With a remote set, the taking is noted before anything is written,
	// so that a sync looks at this session (remote.NoteChanged).
	if note && !w.s.ephemeral && remote.Noting(w.s.fsys) {
		if err := remote.NoteChanged(w.s.fsys, w.dir, id); err != nil {
			w.release(id, l)
			return nil, fmt.Errorf("engine: session %s cannot be written: %w", id, err)
		}
	}
	return l, nil
}

// release gives ownership up.
func (w *Workspace) release(id string, l vfs.Lock) error {
	return owner.Release(w.s.fsys, w.dir, id, l)
}

// releaseKeepingHint lets go of session id's lock but leaves its owner
// hint, so that the next listing settles its record from the journal and
// the next open sweeps by the hint. A session whose record could not be
// written closes so.
func (w *Workspace) releaseKeepingHint(id string, l vfs.Lock) error {
	return owner.ReleaseKeepingHint(l)
}

// owners maps the ids of sessions a process owns to its pid.
func (w *Workspace) owners() map[string]int { return owner.Owners(w.s.fsys, w.dir, w.settleRecord) }

// ownerPID is the pid of the process that holds session id's lock (possibly
// this one), or 0 when none does; a dead owner's record is settled on the
// way (owner.PID).
func (w *Workspace) ownerPID(id string) int { return owner.PID(w.s.fsys, w.dir, id, w.settleRecord) }
