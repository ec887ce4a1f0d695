package engine

import (
	"context"

	"cairn/engine/internal/changes"
	"cairn/internal/vfs"
)

// Settling the changes journal on open: the temp files a stopped change
// left, a change whose tool stopped before its write (unmade: cancelled by
// an abort line), the changes a crash lost before their folders were
// synced (made again from their lines, and settled: settleUnsettled), and
// an undo, redo or restore its owner did not finish (finishRestore: its
// plan run again by the session's applier).

// loadChanges folds the session's changes journal (Open calls it) and
// settles a change its tool did not finish.
func (s *Session) loadChanges(ctx context.Context) error {
	st := &s.snaps
	st.mu.Lock()
	defer st.mu.Unlock()
	st.Stack, st.unread, st.recs = changes.Stack{}, nil, changes.Records{}
	if err := foldChanges(s.ws.s.fsys, changesName(s.ws.dir, s.st.ID), st); err != nil {
		return err
	}
	// The temp files of the newest change and of the unsettled ones
	// before it, or of an undo, redo or restore its owner did not finish
	// (temps.go).
	var files []changes.FileChange
	for _, e := range append([]*changes.Entry{st.Newest(), st.Prev(), st.Restoring()}, st.Unsettled()...) {
		if e != nil {
			files = append(files, e.Rec.Files...)
		}
	}
	s.ws.sweepToolTemps(files)
	// The newest change, and when it is unmade the one before it if its
	// line was unsettled too (changes.Stack.Prev): a crash may have lost
	// both of their file changes, never the older's alone. After a power
	// loss, one that can be made again from its line is, below, rather
	// than cancelled: its tool did not wait for its folder's sync, and may
	// have returned.
	lost := s.ws.powerLost(s.st.ID)
	for i := range 2 {
		if i > 0 && lost && st.RedoesPrev() {
			break
		}
		if !s.ws.unmade(ctx, st) && !s.undoPartlyMade(ctx, st) {
			break
		}
		// Best effort: a change left in the stack undoes to what the
		// file already holds, and the next open tries again.
		if err := s.writeChanges(synced, changes.EventLine{V: 1, Kind: changes.KindAbort, ID: st.Pending().Rec.ID, At: mkTime(s.ws.s.Now())}); err != nil {
			break
		}
		st.PopPending()
	}
	s.settleUnsettled(ctx, lost)
	if e := st.Restoring(); e != nil {
		s.finishRestore(ctx, e)
	}
	s.closeInterrupted() // calls a stopped owner left open (callrec.go)
	if st.reverts {
		// settleReverts reads the journal again, for its timeline; one
		// with no revert line holds no revert to settle.
		s.settleReverts(ctx) // revert_unrevert.go
	}
	return nil
}

// powerLost reports whether the machine may have lost power since
// session id's changes journal was last written, and with it the file
// changes not yet synced (vfs.Booted): only then can a change be found
// unmade that its tool made. After the death of its owner alone the files
// are as it left them, and a file as before a change was put back by hand
// since: it is not made again.
func (w *Workspace) powerLost(id string) bool {
	booted, ok := vfs.Booted(w.s.fsys)
	if !ok {
		return true
	}
	fi, err := w.s.fsys.Stat(changesName(w.dir, id))
	return err != nil || !fi.ModTime().After(booted)
}

// settleUnsettled settles the unsettled changes the judging left
// (changes.Stack.Unsettled) and writes a close line: every change before
// it is made and durable, and none is looked at again. After a power loss
// it first makes again the file changes the crash lost before their
// folders were synced (changes.Stack.RedoPlan). After the death of its
// owner alone nothing was lost, but nothing may have made those changes
// durable either (their folders' syncs were left to an end of the turn
// that never came): their folders are synced before the close line says
// they were made, else a power loss after it would lose them unseen.
func (s *Session) settleUnsettled(ctx context.Context, lost bool) {
	st := &s.snaps
	if len(st.Unsettled()) == 0 {
		return
	}
	fsys, done, err := s.ws.files()
	if err != nil {
		return
	}
	defer done()
	if lost && !changes.RedoLost(ctx, &s.apply, fsys, s.snapObjects(), &st.Stack, s.noticef) {
		return // the next open tries again
	}
	if s.ws.partlyMade(ctx, st) || st.Restoring() != nil {
		return // the next open tries again to unmake it (undoPartlyMade), or to finish the restore
	}
	dirs := changes.UnsettledDirs(&st.Stack)
	if err := changes.SyncFolders(s.ws.files, dirs, ""); err != nil {
		s.noticef("the changes of the last run: %v", err)
		return
	}
	if err := s.writeChanges(closedSynced); err != nil {
		s.noticef("the changes journal could not be written: %v", err)
	}
}

// finishRestore puts back the files an undo, restore or redo of e did not
// get to before its owner stopped (changes.FinishRestore).
func (s *Session) finishRestore(ctx context.Context, e *changes.Entry) {
	fsys, done, err := s.ws.files()
	if err != nil {
		return
	}
	defer done()
	changes.FinishRestore(ctx, &s.apply, fsys, s.snapObjects(), e, s.noticef)
}

// unmade reports whether the stack's pending change was never made
// (changes.Stack.Unmade), reading the workspace's files.
func (w *Workspace) unmade(ctx context.Context, st *snapStack) bool {
	if !st.HasPending() {
		return false
	}
	fsys, done, err := w.files()
	if err != nil {
		return false
	}
	defer done()
	return st.Unmade(ctx, fsys)
}
