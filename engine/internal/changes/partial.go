package changes

import (
	"context"

	"cairn/engine/internal/fstate"
	"cairn/internal/vfs"
	"cairn/objects"
)

// Settling a change made in part. apply_patch writes its change line,
// then swaps its files in one after the other: a crash in between (or a
// power loss before the folders were synced) leaves some files new and
// the rest old. The next owner gives the new ones their pre-image back, as
// an undo would, and then cancels the change with an abort line (the
// engine's loadChanges): a patch is applied whole or not at all, and the
// conversation, whose tool call never answered, finds the files as it
// left them. The pre-images are all in the line, durable before the first
// file changed, so going back always has what it needs; going forward
// would not (an after state is recorded by its hash only). A file edited
// by hand since leaves the change as made, as for a single file; only a
// hand edit that puts back a file's exact old content, made before any
// other change line of the session and followed by a crash, reads as a
// patch stopped midway. When the abort line cannot be written after the
// files were put back, the next open finds them all old and writes it
// (Unmade).

// UndoPartlyMade puts back, through fsys and the applier a, the files of
// the pending change of st a crash left made in part (PartlyMade), and
// reports whether every one was put back: the change is then unmade, and
// its abort line is due. What stops it is said through notice.
func UndoPartlyMade(ctx context.Context, a *Applier, fsys vfs.FS, objs *objects.Store, st *Stack, notice func(format string, args ...any)) bool {
	if !st.HasPending() || len(st.Pending().Rec.Files) < 2 {
		return false
	}
	plan, ok := st.PartlyMade(ctx, fsys, func(f *fstate.State) bool { return fstate.Restorable(objs, f) })
	if !ok {
		return false
	}
	id := st.Pending().Rec.ID
	res := a.Apply(ctx, fsys, objs, plan)
	for i, f := range plan.Files {
		if err := res.Errs[i]; err != nil {
			notice("the change %s, made in part, could not put back %s: %v", id, f.Path, err)
			return false
		}
		if !f.Leave && !res.Written[i] {
			return false // changed since it was read: left as it is
		}
	}
	if res.Sync != nil {
		notice("the change %s, made in part: sync folders: %v", id, res.Sync)
		return false
	}
	return true
}

// LeftPartlyMade reports whether the pending change of st was made in
// part, for a reader, which writes nothing: the next owner unmakes it
// (UndoPartlyMade).
func LeftPartlyMade(ctx context.Context, fsys vfs.FS, st *Stack) bool {
	if !st.HasPending() || len(st.Pending().Rec.Files) < 2 {
		return false
	}
	_, ok := st.PartlyMade(ctx, fsys, (*fstate.State).Stored)
	return ok
}

// PartlyMade returns the plan that unmakes the pending change when its tool
// stopped between its files (apply_patch changes several, each swap atomic
// but not all of them together): every file it changes is, read through
// fsys, still as before or already as after, some of each. The plan gives
// the files as after their pre-image back, each checked to hold after
// still; once it has run, the change is unmade (Unmade) and its abort line
// may be written. It is not partly made (ok false) when a file holds
// anything else (a hand edit since: the change counts as made, as Unmade
// says), or when a file as after has a pre-image canPut says cannot be
// put back (absent, it is removed).
func (st *Stack) PartlyMade(ctx context.Context, fsys vfs.FS, canPut func(*fstate.State) bool) (p Plan, ok bool) {
	if !st.HasPending() {
		return Plan{}, false
	}
	files := st.pending.Rec.Files
	p.Files = make([]File, len(files))
	made, unmade := 0, 0
	for i, f := range files {
		p.Files[i] = File{Path: f.Path, Leave: true}
		if fstate.Same(f.Before, f.After) || f.After.IsSkipped() {
			continue
		}
		cur, limit, before := st.current(ctx, fsys, f)
		switch {
		case fstate.Same(cur, f.After):
			if f.Before.IsSkipped() || (f.Before != nil && !canPut(f.Before)) {
				return Plan{}, false
			}
			made++
			p.Files[i] = File{Path: f.Path, To: f.Before, Check: true, Expect: f.After, MaxRead: limit}
		case f.Before.IsSkipped() || before:
			// Not reached by the tool (a skipped pre-image cannot be
			// compared, and was not written either).
			unmade++
		default:
			return Plan{}, false
		}
	}
	return p, made > 0 && unmade > 0
}
