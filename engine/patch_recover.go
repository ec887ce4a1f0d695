package engine

import (
	"context"

	"cairn/engine/internal/changes"
)

// Settling a change made in part: changes.UndoPartlyMade says how.

// undoPartlyMade puts back the files of the pending change a crash left
// made in part (changes.UndoPartlyMade), and reports whether every one
// was put back: the change is then unmade, and its abort line is due.
func (s *Session) undoPartlyMade(ctx context.Context, st *snapStack) bool {
	if !st.HasPending() || len(st.Pending().Rec.Files) < 2 {
		return false // the workspace's files are not opened for nothing
	}
	fsys, done, err := s.ws.files()
	if err != nil {
		return false
	}
	defer done()
	return changes.UndoPartlyMade(ctx, &s.apply, fsys, s.snapObjects(), &st.Stack, s.noticef)
}

// partlyMade reports whether the stack's pending change was made in part,
// for a reader, which writes nothing: the next owner unmakes it.
func (w *Workspace) partlyMade(ctx context.Context, st *snapStack) bool {
	if !st.HasPending() || len(st.Pending().Rec.Files) < 2 {
		return false
	}
	fsys, done, err := w.files()
	if err != nil {
		return false
	}
	defer done()
	return changes.LeftPartlyMade(ctx, fsys, &st.Stack)
}
