package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"cairn/engine/internal/trash"
	"cairn/journal"
)

// Trim moves a session to the transcript tier: it drops what only file
// revert, undo and tool_output need (package trash draws the lines it
// writes), then the items journal gets a tier line. The conversation,
// drafts, titles, turns and the trail stay: the session resumes, and its
// old tool calls read from their text. Objects the dropped records named
// are left for prune. A plan written first (retention_plans.go) has the
// next open run again a trim a crash cut short. A transcript session that
// gets a new item is full again (state.go) for its new work.

// runTrim runs the steps of a trim of session id at now, whose lock the
// caller holds (trimSession makes it all or nothing, retention_plans.go):
// trash.Trim drops the artifacts, then the tier line comes last.
func (w *Workspace) runTrim(ctx context.Context, id string, now Time) error {
	if err := trash.Trim(ctx, w.s.fsys, w.dir, id, now); err != nil {
		return err
	}
	rec, err := readRecord(w.s.fsys, w.dir, id)
	if err != nil || rec.Tier != "transcript" {
		if err := w.appendMeta(id, map[string]any{"tier": "transcript"}, now); err != nil {
			return err
		}
	}
	return w.rebuildRecord(ctx, id)
}

// appendMeta appends a meta line to session id's items journal and syncs
// it; the caller holds the session's lock.
func (w *Workspace) appendMeta(id string, meta map[string]any, now Time) error {
	m, _ := json.Marshal(meta)
	jw, _, err := journal.OpenWriter(w.s.fsys, itemsName(w.dir, id), journal.Options{Sync: journal.SyncManual, Now: w.s.now})
	if err != nil {
		return fmt.Errorf("engine: session %s: %w", id, err)
	}
	err = jw.Append(&itemLine{V: 1, Kind: kindMeta, Meta: m, At: &now})
	if err == nil {
		err = jw.Sync()
	}
	if cerr := jw.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("engine: session %s: %w", id, err)
	}
	return nil
}

// trimmed reports whether session id's record says it was trimmed (its
// tier is transcript): for the messages of what a trim took.
func (w *Workspace) trimmed(id string) bool {
	rec, err := readRecord(w.s.fsys, w.dir, id)
	return err == nil && rec.Tier == "transcript"
}

// SetPinned pins or unpins session id: a pinned session is kept by every
// retention policy and refused by trim and forget. It takes the session's
// lock (a *BusyError while another process has it open).
func (w *Workspace) SetPinned(ctx context.Context, id string, pinned bool) error {
	if !validSessionID(id) {
		return fmt.Errorf("%w: %q is not a session id", ErrBadInput, id)
	}
	if _, err := w.s.fsys.Stat(itemsName(w.dir, id)); err != nil {
		return fmt.Errorf("%w: session %s", ErrNotFound, id)
	}
	l, err := w.acquire(id)
	if err != nil {
		return err
	}
	defer w.release(id, l)
	if rec, err := readRecord(w.s.fsys, w.dir, id); err == nil && rec.Pinned == pinned {
		return nil
	}
	if err := w.appendMeta(id, map[string]any{"pinned": pinned}, mkTime(w.s.Now())); err != nil {
		return err
	}
	return w.rebuildRecord(ctx, id)
}

// errSkipped says a session's turn came while it was open or pinned.
var errSkipped = errors.New("skipped")
