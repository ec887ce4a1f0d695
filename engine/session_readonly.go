package engine

import (
	"context"
	"errors"
	"fmt"
)

// A session whose state folder cannot be written (a read-only mount, a
// folder of another user, a full disk without room for its lock file) can
// still be read: reads need no write. With SessionOptions.Degrade, Open
// then opens it read-only rather than failing: its conversation and undo
// stack are loaded, nothing is written (no lock, no open line, no record,
// no recovery of the files of an unfinished change), and it runs
// unrecorded, said once. Without Degrade, Open fails, saying why.

// openReadOnly loads session id without ownership, for a session that
// cannot be written because of cause, or, cause nil, for one opened to be
// read only (SessionOptions.ReadOnly).
func (w *Workspace) openReadOnly(ctx context.Context, id string, opts SessionOptions, cause error) (*Session, error) {
	w.sweepKilled() // the workspace may be writable while the state folder is not
	st, err := w.fold(ctx, id, foldOptions{hydrate: true, limit: w.s.eagerLimit()})
	if err != nil {
		return nil, err
	}
	s := &Session{ws: w, opts: opts, readOnly: true, convLog: convLog{st: st, recorded: true}}
	s.snaps.mu.Lock()
	err = foldChanges(w.s.fsys, changesName(w.dir, id), &s.snaps)
	s.snaps.mu.Unlock()
	if err != nil {
		return nil, err
	}
	s.resume = ResumeInfo{BranchBefore: st.Branch, BuildBefore: st.Build, Branch: gitBranch(w.path),
		Build: Version, AskTrust: st.Trust == nil}
	if cause == nil { // asked for (SessionOptions.ReadOnly): nothing to say
		s.unrecorded = fmt.Errorf("engine: session %s is open read-only", id)
		return s, nil
	}
	s.unrecorded = fmt.Errorf("engine: session %s is open read-only: %w", id, cause)
	why := cause
	if inner := errors.Unwrap(cause); inner != nil {
		why = inner // without acquire's "cannot be written (its lock)"
	}
	s.noticef("this session cannot be written, so it is open read-only and nothing done in it is recorded (%v)", why)
	return s, nil
}
