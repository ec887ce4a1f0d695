package snapshot

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/errs"
	"cairn/engine/internal/fstate"
	"cairn/internal/timefmt"
)

// One step of an undo, redo or restore-to: the line first (with what the
// step keeps, for redo), then a changes.Plan of the files to put back, run
// by the session's applier; a step that put back no file is cancelled with
// the opposite line (Host.Cancel: owed when it cannot be written,
// engine/internal/changes/cancel.go).

// keepWhy says why an undo cannot keep a file's current content for redo,
// from its capture cur (skipped) and the capture's error.
func keepWhy(cur *fstate.State, err error) string {
	cause := ""
	if err != nil {
		cause = ": " + err.Error()
	}
	switch cur.Skipped {
	case fstate.SkipTooLarge:
		return "it is now too large to keep for redo" + cause
	case fstate.SkipNotFile:
		return "it is now not a file" + cause
	case fstate.SkipStore:
		return "its current content cannot be kept for redo: the snapshot store failed" + cause
	}
	return "it cannot be read to keep it for redo" + cause
}

// undoOne undoes snapshot e, the newest applied one. A snapshot none of
// whose files can be put back is refused, unless pass (a restore-to going
// past it).
func (r *Run) undoOne(ctx context.Context, e *changes.Entry, kind string, pass bool) (RestoreStep, error) {
	h, fsys, objs := r.Host, r.FS, r.Objs
	step := newStep(e)
	files := e.Rec.Files
	kept := make([]*fstate.State, len(files))
	why := make([]string, len(files)) // "" for a file to put back
	ok := 0
	for k, f := range files {
		if v := r.content(ctx, f.Before, "its pre-image"); v.why != "" {
			why[k], kept[k] = v.why, &fstate.State{Skipped: v.skip, Size: f.Before.Size}
			continue
		}
		cur, cerr := fstate.Capture(ctx, fsys, fstate.StoreSink(ctx, objs), f.Path, r.MaxFile)
		kept[k] = cur
		if cur.IsSkipped() {
			why[k] = keepWhy(cur, cerr)
			continue
		}
		ok++
	}
	if err := ctx.Err(); err != nil {
		return step, err
	}
	if ok == 0 && !pass {
		return step, r.refusal(ActionUndo, e, why)
	}
	line := changes.UndoLine{V: 1, Kind: kind, ID: e.Rec.ID, At: h.Now(), Item: r.Item, Files: make([]changes.KeptFile, len(files))}
	for k, f := range files {
		line.Files[k] = changes.KeptFile{Path: f.Path, Kept: kept[k]}
	}
	if err := h.WriteSynced(line); err != nil {
		// The line may have reached the journal: cancel it with a redo
		// (owed, if that cannot be written either).
		st := r.Stack
		h.Refold()
		if i := st.Find(e.Rec.ID); i >= 0 && !st.Entries()[i].Applied {
			h.Cancel(redoLine(e, h.Now(), r.Item))
		}
		return step, err
	}
	r.Stack.Undid(e, kept)
	done := r.Applier.Apply(ctx, fsys, objs, changes.UndoPlan(e, kept, leaves(why)))
	for k, f := range files {
		if err := done.Errs[k]; err != nil {
			why[k] = "it could not be written: " + err.Error()
		}
		switch {
		case why[k] != "":
			r.leave(&step, f.Path, why[k])
		case fstate.Same(kept[k], f.Before):
			// The plan left it: it already held its pre-image.
			step.Unchanged = append(step.Unchanged, h.AbsPath(f.Path))
		case f.Before == nil:
			step.Removed = append(step.Removed, h.AbsPath(f.Path))
		default:
			step.Restored = append(step.Restored, h.AbsPath(f.Path))
		}
	}
	if err := done.Sync; err != nil {
		return step, fmt.Errorf("engine: undo %s: sync folders: %w", e.Rec.ID, err)
	}
	if !pass && !putBack([]RestoreStep{step}) {
		// Every write failed, so the files are as the undo found them.
		if err := h.Cancel(redoLine(e, h.Now(), r.Item)); err != nil {
			return step, fmt.Errorf("engine: undo %s put back no file: %w", e.Rec.ID, err)
		}
		return step, r.refusal(ActionUndo, e, why)
	}
	return step, nil
}

// redoOne puts back what the undo of e kept. A file that changed since the
// undo refuses the whole redo before anything is written, and so does a
// redo that can put back none of the files it should. A file the undo
// left as it was is left again.
func (r *Run) redoOne(ctx context.Context, e *changes.Entry) (RestoreStep, error) {
	h, fsys, objs := r.Host, r.FS, r.Objs
	step := newStep(e)
	files := e.Rec.Files
	if len(e.Kept) != len(files) {
		return step, fmt.Errorf("engine: snapshot %s has no undo to redo", e.Rec.ID)
	}
	var changed []string
	why := make([]string, len(files)) // "" for a file to put back
	failed := make([]bool, len(files))
	already := make([]bool, len(files)) // holds what the undo kept now
	todo := 0
	for k, f := range files {
		kept := e.Kept[k]
		if kept.IsSkipped() {
			why[k] = "the undo left it as it was (" + kept.Skipped + ")"
			continue
		}
		if why[k] = r.content(ctx, kept, "the content the undo kept").why; why[k] != "" {
			failed[k] = true
			continue
		}
		todo++
		cur, _, ok := fstate.Holds(ctx, fsys, f.Path, fstate.SizeLimit(r.MaxFile, kept, f.Before), f.Before, kept)
		if !ok {
			changed = append(changed, f.Path)
		}
		already[k] = fstate.Same(cur, kept)
	}
	if err := ctx.Err(); err != nil {
		return step, err
	}
	if len(changed) > 0 {
		return step, errs.Refusedf("redo would overwrite %s, changed since the undo", strings.Join(changed, ", "))
	}
	if todo == 0 && slices.Contains(failed, true) {
		return step, r.refusal(ActionRedo, e, why)
	}
	if err := h.WriteSynced(changes.EventLine{V: 1, Kind: changes.KindRedo, ID: e.Rec.ID, At: h.Now(), Item: r.Item}); err != nil {
		// The line may have reached the journal: cancel it with an undo
		// keeping what the last undo kept (owed, if that cannot be
		// written either).
		st := r.Stack
		h.Refold()
		if i := st.Find(e.Rec.ID); i >= 0 && st.Entries()[i].Applied {
			h.Cancel(undoLine(st.Entries()[i], h.Now(), r.Item))
		}
		return step, err
	}
	r.Stack.Redid(e)
	left := leaves(why)
	for k := range left {
		left[k] = left[k] || already[k]
	}
	done := r.Applier.Apply(ctx, fsys, objs, changes.RedoPlan(e, left))
	for k, f := range files {
		kept := e.Kept[k]
		if err := done.Errs[k]; err != nil {
			why[k], failed[k] = "it could not be written: "+err.Error(), true
		}
		switch {
		case why[k] != "":
			r.leave(&step, f.Path, why[k])
		case already[k]:
			step.Unchanged = append(step.Unchanged, h.AbsPath(f.Path))
		case kept == nil:
			step.Removed = append(step.Removed, h.AbsPath(f.Path))
		default:
			step.Restored = append(step.Restored, h.AbsPath(f.Path))
		}
	}
	if err := done.Sync; err != nil {
		return step, fmt.Errorf("engine: redo %s: sync folders: %w", e.Rec.ID, err)
	}
	if todo > 0 && !putBack([]RestoreStep{step}) {
		// Every write failed, so the files are as the redo found them.
		if err := h.Cancel(undoLine(e, h.Now(), r.Item)); err != nil {
			return step, fmt.Errorf("engine: redo %s put back no file: %w", e.Rec.ID, err)
		}
		return step, r.refusal(ActionRedo, e, why)
	}
	return step, nil
}

// undoLine is an undo line for e keeping what its last undo kept, the
// cancellation of a redo whose line named item.
func undoLine(e *changes.Entry, now timefmt.Time, item changes.ItemRef) changes.UndoLine {
	line := changes.UndoLine{V: 1, Kind: changes.KindUndo, ID: e.Rec.ID, At: now, Item: item, Files: make([]changes.KeptFile, len(e.Rec.Files))}
	for k, f := range e.Rec.Files {
		line.Files[k] = changes.KeptFile{Path: f.Path, Kept: e.Kept[k]}
	}
	return line
}

// redoLine is a redo line for e, the cancellation of an undo whose line
// named item.
func redoLine(e *changes.Entry, now timefmt.Time, item changes.ItemRef) changes.EventLine {
	return changes.EventLine{V: 1, Kind: changes.KindRedo, ID: e.Rec.ID, At: now, Item: item}
}

// leaves is which files a step leaves: those it has a reason for.
func leaves(why []string) []bool {
	out := make([]bool, len(why))
	for k, w := range why {
		out[k] = w != ""
	}
	return out
}
