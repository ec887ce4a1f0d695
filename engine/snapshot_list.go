package engine

import (
	"context"

	"cairn/engine/internal/snapshot"
)

// The undo stack's answers (seed 001's JSON shapes), which the CLI and
// the HTTP API print as they are; package snapshot says each field.
type (
	// SnapshotList is the answer of `cairn snapshots` and
	// GET /api/sessions/{id}/snapshots.
	SnapshotList = snapshot.SnapshotList
	// SnapshotInfo is one snapshot: a change record seen from the undo
	// stack.
	SnapshotInfo = snapshot.SnapshotInfo
	// SnapshotFile is one file of a snapshot, as it was before the tool.
	SnapshotFile = snapshot.SnapshotFile
	// RecordInfo is one change record of a call other than the file tools.
	RecordInfo = snapshot.RecordInfo
	// UnreadRecord is a line of the changes journal the undo stack could
	// not read.
	UnreadRecord = snapshot.UnreadRecord
	// RestoreResult is the answer of undo, redo and restore-to.
	RestoreResult = snapshot.RestoreResult
	// restoreStep is what one snapshot's undo or redo did to the files.
	restoreStep = snapshot.RestoreStep
	// FileReason is a file and why it was not put back.
	FileReason = snapshot.FileReason
	// ToolAnswer is the answer of a file tool (`cairn tool ...`).
	ToolAnswer = snapshot.ToolAnswer
)

// Snapshots lists the snapshots of session id without ownership, from the
// changes journal as it is on disk; it works while another process owns
// the session.
func (s *Session) Snapshots(ctx context.Context) (*SnapshotList, error) {
	st := &s.snaps
	st.mu.Lock()
	defer st.mu.Unlock()
	return snapshotList(s.ws, s.ID(), st), nil
}

// Snapshots lists the snapshots of session id without taking ownership:
// it folds the changes journal as it is on disk, less a change its tool
// never made (the owner records that when it next opens the session). It
// takes no lock and writes nothing but the removal of the temp files a
// killed owner left (sweepKilled), so it works while another process owns
// the session.
func (w *Workspace) Snapshots(ctx context.Context, id string) (*SnapshotList, error) {
	if err := w.checkSession(id); err != nil {
		return nil, err
	}
	w.sweepKilled()
	var st snapStack
	if err := foldChanges(w.s.fsys, changesName(w.dir, id), &st); err != nil {
		return nil, err
	}
	lost := w.powerLost(id)
	for i := range 2 { // the newest change and the unsettled one before it (loadChanges)
		if i > 0 && lost && st.RedoesPrev() {
			break
		}
		if !w.unmade(ctx, &st) && !w.partlyMade(ctx, &st) {
			break
		}
		st.PopPending()
	}
	return snapshotList(w, id, &st), nil
}

func snapshotList(w *Workspace, id string, st *snapStack) *SnapshotList {
	dropped, _ := w.readDrops() // records another session's store budget dropped
	return snapshot.List(id, &st.Stack, st.recs.Live, dropped[id], st.unread, w.absPath)
}
