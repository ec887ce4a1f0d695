package engine

import (
	"context"
	"fmt"
)

// A record is stale when its journal went on past it: the "journals" sizes
// it says it reflects differ from the items journal's size. A session
// leaves a current record when it closes; one whose process was killed, or
// lost power, may leave its last turns out of it. An open always compares
// the two and rebuilds the record (load); a listing does it for a session
// whose owner died (ownerPID, which a listing asks for every session that
// was left with an owner's hint), and fsck names every stale record.

// staleRecord reports whether session id's record is missing, unreadable
// or older than its items journal, with the journal's size.
func (w *Workspace) staleRecord(id string) (stale bool, size int64, err error) {
	fi, err := w.s.fsys.Stat(itemsName(w.dir, id))
	if err != nil {
		return false, 0, err
	}
	rec, rerr := readRecord(w.s.fsys, w.dir, id)
	return rerr != nil || rec.Journals["items"] != fi.Size(), fi.Size(), nil
}

// settleRecord rebuilds session id's record when it is stale. The caller
// holds the session's lock, or knows no process does. Best effort: a
// record that cannot be rebuilt stays as it is, for an open to rebuild.
func (w *Workspace) settleRecord(id string) {
	if stale, _, err := w.staleRecord(id); err == nil && stale {
		w.rebuildRecord(context.Background(), id)
	}
}

// rebuildRecord writes session id's record from its journal. A journal
// that cannot be read gets none.
// The journal's size is taken first: should a line arrive during the fold,
// the record says it reflects less than it does, and is rebuilt again.
func (w *Workspace) rebuildRecord(ctx context.Context, id string) error {
	fi, err := w.s.fsys.Stat(itemsName(w.dir, id))
	if err != nil {
		return fmt.Errorf("engine: rebuild record: %w", err)
	}
	st, err := w.fold(ctx, id, foldOptions{})
	if err != nil {
		return err
	}
	if err := w.readable(id, st); err != nil {
		return err // not a session: left out, for fsck to name
	}
	return writeRecord(w.s.fsys, w.dir, recordOf(st, map[string]int64{"items": fi.Size()}))
}
