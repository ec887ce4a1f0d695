package engine

import (
	"context"
	"fmt"
	"path"
	"strings"

	"cairn/engine/internal/changes"
	"cairn/internal/timefmt"
	"cairn/internal/vfs"
	"cairn/journal"
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
	tl := &changes.Timeline{}
	_, err := journal.Read(fsys, changesName(dir, id), func(b []byte) error {
		if l, err := changes.Decode(b); err == nil {
			tl.Fold(l)
		}
		return nil
	})
	if err != nil && !vfs.IsNotExist(err) {
		return nil, fmt.Errorf("engine: read %s: %w", changesName(dir, id), err)
	}
	return tl, nil
}

// pendingRevertAt is PendingRevert for session id of workspace folder dir
// (false when its journal cannot be read).
func pendingRevertAt(fsys vfs.FS, dir, id string) bool {
	tl, err := timelineAt(fsys, dir, id)
	return err == nil && (tl.Pending() || tl.Undoing != nil)
}

// PendingRevert reports whether session id has a file revert an unrevert
// would undo (or one not settled since it stopped): retention keeps such a
// session and its records. It reads the session's changes journal only.
func (w *Workspace) PendingRevert(ctx context.Context, id string) (bool, error) {
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

// budgetDrops is the records the store budget dropped, as the workspace's
// drops journal names them (any session's: a fork holds its parent's). A
// journal that cannot be read refuses the revert: which records it needs
// were dropped cannot be told.
func (w *Workspace) budgetDrops() (map[string]bool, error) {
	out := map[string]bool{}
	_, err := journal.Read(w.s.fsys, dropsName(w.dir), func(b []byte) error {
		tl := changes.Timeline{}
		if l, err := changes.Decode(b); err == nil && tl.Fold(l) == nil {
			for id := range tl.Dropped {
				out[id] = true
			}
		}
		return nil
	})
	if err != nil && !vfs.IsNotExist(err) {
		return nil, cannotCheck("whether the records it needs were dropped", dropsName(w.dir), err)
	}
	return out, nil
}

// cannotCheck refuses a file revert whose check of what (a file of the
// state folder, name) could not be made: it cannot tell, so it does not
// go ahead.
func cannotCheck(what, name string, err error) error {
	return refusedf("cannot revert files: cannot check %s (%s: %w); nothing was changed", what, name, err)
}

// foreignChanges is what the other sessions of the workspace changed, for
// the interleaving check: each of their steps that this session's journal
// does not hold too (a fork and its parent share lines). A sessions folder
// or another session's changes journal that cannot be read refuses the
// revert: whether another session changed the files cannot be told.
func (w *Workspace) foreignChanges(self string, mine *changes.Timeline) (changes.Foreign, error) {
	key := func(st *changes.Step) string { return st.Kind + " " + st.ID + " " + timefmt.Format(st.At.Time) }
	own := map[string]bool{}
	for _, st := range mine.Steps {
		own[key(st)] = true
	}
	at := map[string][]timefmt.Time{}
	sessions := path.Join(w.dir, "sessions")
	ents, err := w.s.fsys.ReadDir(sessions)
	if err != nil {
		return nil, cannotCheck("whether another session changed the same files", sessions, err)
	}
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".changes.jsonl")
		if !ok || id == self || !validSessionID(id) {
			continue
		}
		tl, err := w.timeline(id)
		if err != nil {
			return nil, cannotCheck("whether another session changed the same files", changesName(w.dir, id), err)
		}
		for _, st := range tl.Steps {
			if own[key(st)] {
				continue
			}
			for _, m := range st.Moves {
				at[m.Path] = append(at[m.Path], st.At)
			}
		}
	}
	return func(p string, lo, hi timefmt.Time) bool {
		for _, t := range at[p] {
			if !t.Before(lo.Time) && !t.After(hi.Time) {
				return true
			}
		}
		return false
	}, nil
}
