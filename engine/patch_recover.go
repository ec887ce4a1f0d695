package engine

import (
	"context"

	"cairn/engine/internal/fstate"
)

// Settling a change made in part. apply_patch writes its change line,
// then swaps its files in one after the other: a crash in between (or a
// power loss before the folders were synced) leaves some files new and
// the rest old. The next owner gives the new ones their pre-image back, as
// an undo would, and then cancels the change with an abort line
// (loadChanges): a patch is applied whole or not at all, and the
// conversation, whose tool call never answered, finds the files as it
// left them. The pre-images are all in the line, durable before the first
// file changed, so going back always has what it needs; going forward
// would not (an after state is recorded by its hash only). A file edited
// by hand since leaves the change as made, as for a single file; only a
// hand edit that puts back a file's exact old content, made before any
// other change line of the session and followed by a crash, reads as a
// patch stopped midway. When the abort line cannot be written after the
// files were put back, the next open finds them all old and writes it
// (Workspace.unmade).

// undoPartlyMade puts back the files of the pending change a crash left
// made in part (changes.Stack.PartlyMade), and reports whether every one
// was put back: the change is then unmade, and its abort line is due.
func (s *Session) undoPartlyMade(ctx context.Context, st *snapStack) bool {
	if !st.HasPending() || len(st.Pending().Rec.Files) < 2 {
		return false
	}
	fsys, done, err := s.ws.files()
	if err != nil {
		return false
	}
	defer done()
	objs := s.snapObjects()
	plan, ok := st.PartlyMade(ctx, fsys, func(f *fstate.State) bool { return fstate.Restorable(objs, f) })
	if !ok {
		return false
	}
	id := st.Pending().Rec.ID
	res := s.apply.Apply(ctx, fsys, objs, plan)
	for i, f := range plan.Files {
		if err := res.Errs[i]; err != nil {
			s.noticef("the change %s, made in part, could not put back %s: %v", id, f.Path, err)
			return false
		}
		if !f.Leave && !res.Written[i] {
			return false // changed since it was read: left as it is
		}
	}
	if res.Sync != nil {
		s.noticef("the change %s, made in part: sync folders: %v", id, res.Sync)
		return false
	}
	return true
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
	_, ok := st.PartlyMade(ctx, fsys, (*fstate.State).Stored)
	return ok
}
