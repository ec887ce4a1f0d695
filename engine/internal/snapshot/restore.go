package snapshot

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/errs"
	"cairn/engine/internal/fstate"
	"cairn/internal/timefmt"
	"cairn/internal/vfs"
	"cairn/objects"
)

// Undo, redo and restore-to at work, once the engine holds the session's
// locks and has chosen the snapshots (the engine's snapshot_restore.go).

// Restore actions, as answers and the trail name them.
const (
	ActionUndo    = "undo"
	ActionRedo    = "redo"
	ActionRestore = "restore"
)

// RestoreError is the refusal of an undo, redo or restore-to that could
// put back no file: the snapshot, and each file with why. Nothing was
// changed. It wraps ErrRefused.
type RestoreError struct {
	Action   string // undo | redo | restore
	Snapshot string
	Tool     string
	Files    []FileReason // absolute paths, as answers name them
	// Below is, for an undo, the next older applied snapshot: a restore-to
	// it passes over this one, leaving its files as they are. "" when none.
	Below string
}

func (e *RestoreError) Error() string { return errs.RefusedText(e.Why()) }

// Why is what the refusal says after the word.
func (e *RestoreError) Why() string {
	parts := make([]string, len(e.Files))
	for i, f := range e.Files {
		parts[i] = f.Path + " (" + f.Reason + ")"
	}
	verb := e.Action
	if verb == ActionRestore {
		verb = ActionUndo
	}
	return fmt.Sprintf("cannot %s %s (%s): no file could be put back: %s; nothing was changed",
		verb, e.Snapshot, e.Tool, strings.Join(parts, ", "))
}

func (e *RestoreError) Unwrap() error { return errs.ErrRefused }

// Host is what a run needs of its session: answers name files by their
// absolute path; lines are written synced, a failed write refolds the
// stack from the journal, and a cancellation may be owed.
type Host interface {
	AbsPath(rel string) string
	Now() timefmt.Time
	WriteSynced(lines ...any) error
	Refold()
	Cancel(lines ...any) error
}

// Run is one undo, redo or restore-to at work, over the session's undo
// stack (whose lock the caller holds), its workspace's files, its object
// store and its applier.
type Run struct {
	Host    Host
	Stack   *changes.Stack
	FS      vfs.FS
	Objs    *objects.Store
	Applier *changes.Applier
	MaxFile int64
	checked map[*fstate.State]verdict // content's verdicts, by state
	// Item is the "item" of every line the run writes: the newest item
	// when it began. A line that cancels a step names the step's item, so
	// the two lie on the same side of any file revert's boundary however
	// much later the cancellation is written (engine/internal/changes/cancel.go).
	Item changes.ItemRef
}

// verdict is why a state cannot be put back ("" when it can), and the
// skip reason an undo keeps for it.
type verdict struct{ why, skip string }

// Restore runs action (undo, redo, restore-to id) over targets, the
// snapshots it reaches, newest first, and returns the steps taken, also
// when it fails (for the trail).
func (r *Run) Restore(ctx context.Context, action, id string, targets []*changes.Entry) ([]RestoreStep, error) {
	if r.checked == nil {
		r.checked = map[*fstate.State]verdict{}
	}
	steps := []RestoreStep{}
	if action == ActionRestore {
		if err := r.anyPreImage(ctx, targets, id); err != nil {
			return steps, err
		}
	}
	for _, e := range targets {
		var step RestoreStep
		var err error
		if action == ActionRedo {
			step, err = r.redoOne(ctx, e)
		} else {
			kind := changes.KindUndo
			if action == ActionRestore {
				kind = changes.KindRestore
			}
			step, err = r.undoOne(ctx, e, kind, action == ActionRestore)
		}
		if err != nil {
			return steps, err
		}
		steps = append(steps, step)
	}
	if action == ActionRestore && !putBack(steps) {
		// Every step was taken and none put a file back: the files are as
		// the restore found them. Cancel the steps, the last one first.
		rerr := &RestoreError{Action: action, Snapshot: id, Tool: targets[len(targets)-1].Rec.Tool}
		for _, step := range steps {
			rerr.Files = append(rerr.Files, step.NotRestored...)
		}
		now := r.Host.Now()
		lines := make([]any, 0, len(targets))
		for i := len(targets) - 1; i >= 0; i-- {
			lines = append(lines, redoLine(targets[i], now, r.Item))
		}
		if err := r.Host.Cancel(lines...); err != nil {
			return nil, fmt.Errorf("engine: restore to %s put back no file: %w", id, err)
		}
		return nil, rerr
	}
	return steps, nil
}

// putBack reports whether any step put a file back, or found one already
// as the step would leave it.
func putBack(steps []RestoreStep) bool {
	for _, st := range steps {
		if len(st.Restored)+len(st.Removed)+len(st.Unchanged) > 0 {
			return true
		}
	}
	return false
}

// anyPreImage refuses a restore-to id none of whose targets has a file
// whose pre-image can be put back, before anything is written.
func (r *Run) anyPreImage(ctx context.Context, targets []*changes.Entry, id string) error {
	rerr := &RestoreError{Action: ActionRestore, Snapshot: id, Tool: targets[len(targets)-1].Rec.Tool}
	for _, e := range targets {
		for _, f := range e.Rec.Files {
			why := r.content(ctx, f.Before, "its pre-image").why
			if why == "" {
				return nil
			}
			rerr.Files = append(rerr.Files, FileReason{r.Host.AbsPath(f.Path), why})
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return rerr
}

// content says why state f (what) cannot be put back, or nothing when it
// can: absent, inline (verified when its line was read), or an object that
// exists and hashes to its name (read whole to check).
func (r *Run) content(ctx context.Context, f *fstate.State, what string) verdict {
	if f == nil || f.Inline() {
		return verdict{}
	}
	if f.IsSkipped() {
		return verdict{what + " was not captured (" + f.Skipped + ")", f.Skipped}
	}
	if v, ok := r.checked[f]; ok {
		return v
	}
	var v verdict
	id, err := objects.ParseID(f.OID)
	if err == nil {
		err = r.Objs.Verify(ctx, id)
	}
	switch {
	case err == nil:
	case errors.Is(err, objects.ErrNotFound):
		v = verdict{what + ", object " + f.OID[:12] + ", is missing", fstate.SkipMissing}
	case errors.Is(err, objects.ErrMismatch):
		v = verdict{what + ", object " + f.OID[:12] + ", is damaged (hash mismatch)", fstate.SkipDamaged}
	default:
		v = verdict{what + " cannot be read: " + err.Error(), fstate.SkipUnreadable}
	}
	r.checked[f] = v
	return v
}

// refusal is the RestoreError of snapshot e, none of whose files could be
// put back, why[k] saying why for each.
func (r *Run) refusal(action string, e *changes.Entry, why []string) *RestoreError {
	rerr := &RestoreError{Action: action, Snapshot: e.Rec.ID, Tool: e.Rec.Tool}
	for k, f := range e.Rec.Files {
		rerr.Files = append(rerr.Files, FileReason{r.Host.AbsPath(f.Path), why[k]})
	}
	if action == ActionUndo {
		st := r.Stack
		if i := st.Find(e.Rec.ID); i > 0 && st.Entries()[i-1].Applied {
			rerr.Below = st.Entries()[i-1].Rec.ID
		}
	}
	return rerr
}

// leave names file k of step as left as it was, and why.
func (r *Run) leave(step *RestoreStep, rel, why string) {
	abs := r.Host.AbsPath(rel)
	step.Skipped = append(step.Skipped, abs)
	step.NotRestored = append(step.NotRestored, FileReason{abs, why})
}

func newStep(e *changes.Entry) RestoreStep {
	return RestoreStep{ID: e.Rec.ID, At: e.Rec.At, Tool: e.Rec.Tool, Restored: []string{}, Removed: []string{}, Skipped: []string{}}
}
