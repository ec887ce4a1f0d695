package changes

import (
	"context"

	"cairn/engine/internal/fstate"
	"cairn/internal/vfs"
	"cairn/objects"
)

// Settling a changes journal on open, the parts that need no session: the
// changes a crash lost made again, and an undo, redo or restore its owner
// did not finish put back, each through the one Applier.

// RedoLost makes again, after a power loss, the file changes of st's
// unsettled changes the crash lost before their folders were synced
// (Stack.RedoPlan). It reports whether all were made; notice is told of
// each that was not.
func RedoLost(ctx context.Context, a *Applier, fsys vfs.FS, objs *objects.Store, st *Stack, notice func(string, ...any)) bool {
	plan := st.RedoPlan(ctx, fsys)
	if len(plan.Files) == 0 {
		return true
	}
	res := a.Apply(ctx, fsys, objs, plan)
	ok := res.Sync == nil
	for i, err := range res.Errs {
		if err != nil {
			ok = false
			notice("a change a crash interrupted could not be made again: %s: %v", plan.Files[i].Path, err)
		}
	}
	if res.Sync != nil {
		notice("the changes a crash interrupted: sync folders: %v", res.Sync)
	}
	return ok
}

// UnsettledDirs is the folders of the files st's unsettled changes
// changed, to sync before a close line says they were made.
func UnsettledDirs(st *Stack) fstate.DirSet {
	dirs := fstate.DirSet{}
	for _, e := range st.Unsettled() {
		for _, f := range e.Rec.Files {
			dirs.Add(f.Path)
		}
	}
	return dirs
}

// FinishRestore puts back the files an undo, restore or redo of e did not
// get to before its owner stopped (no close line followed its line). Its
// line, written first, holds every content it needs: a file still as the
// undo found it (the content it kept) gets its "before" again, one a redo
// had not reached yet gets what the undo kept. A file holding anything
// else is left as it is. notice is told what could not be put back.
func FinishRestore(ctx context.Context, a *Applier, fsys vfs.FS, objs *objects.Store, e *Entry, notice func(string, ...any)) {
	if len(e.Kept) != len(e.Rec.Files) {
		return
	}
	plan := RecoveryPlan(e, func(f *fstate.State) bool { return fstate.Restorable(objs, f) })
	verb := "undo"
	if e.Applied {
		verb = "redo"
	}
	res := a.Apply(ctx, fsys, objs, plan)
	for i, err := range res.Errs {
		if err != nil {
			notice("the interrupted %s of %s could not put back %s: %v", verb, e.Rec.ID, e.Rec.Files[i].Path, err)
		}
	}
	if err := res.Sync; err != nil {
		notice("the interrupted restore of %s: sync folders: %v", e.Rec.ID, err)
	}
}
