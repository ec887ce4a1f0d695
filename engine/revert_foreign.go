package engine

import (
	"context"
	"fmt"
	"path"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/revert"
	"cairn/internal/vfs"
)

// What a file revert reads besides its own journal: the timeline of a
// session, the records another session's store budget dropped, and the
// changes other sessions made to the same files (revert_files.go).

// timeline folds session id's changes journal for file revert; lines it
// cannot fold are skipped (fsck names them).
func (w *Workspace) timeline(id string) (*changes.Timeline, error) {
	return timelineAt(w.s.fsys, w.dir, id)
}

// timelineAt folds the changes journal of session id in workspace folder
// dir.
func timelineAt(fsys vfs.FS, dir, id string) (*changes.Timeline, error) {
	return revert.ReadTimeline(fsys, changesName(dir, id))
}

// pendingRevertAt is PendingRevert for session id of workspace folder dir
// (false when its journal cannot be read).
func pendingRevertAt(fsys vfs.FS, dir, id string) bool {
	tl, err := timelineAt(fsys, dir, id)
	return err == nil && (tl.Pending() || tl.Undoing != nil)
}

// pendingRevert reports whether session id has a file revert an unrevert
// would undo (or one not settled since it stopped): retention keeps such a
// session and its records. It reads the session's changes journal only.
func (w *Workspace) pendingRevert(ctx context.Context, id string) (bool, error) {
	if !validSessionID(id) {
		return false, fmt.Errorf("%w: %q is not a session id", ErrBadInput, id)
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	tl, err := w.timeline(id)
	if err != nil {
		return false, err
	}
	return tl.Pending() || tl.Undoing != nil, nil
}

// revertSessions is where the workspace's sessions keep their changes
// journals, as package revert reads them.
func (w *Workspace) revertSessions() revert.Sessions {
	return revert.Sessions{Dir: path.Join(w.dir, "sessions"), Valid: validSessionID, Changes: func(id string) string { return changesName(w.dir, id) }}
}
