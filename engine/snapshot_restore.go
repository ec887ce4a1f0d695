package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"cairn/engine/internal/changes"

	"cairn/engine/internal/fstate"
	"cairn/internal/vfs"
	"cairn/objects"
)

// Undo, redo and restore-to. An undo keeps the files' current content as
// objects and writes its undo line (synced) before it touches a file, so
// whatever happens after, redo can put exactly that content back. Each file
// is replaced atomically or removed; the folders are synced before the
// answer. A file an undo cannot keep or restore (its pre-image was skipped
// or its object is missing or damaged, its current content is too large or
// unreadable, or it cannot be written) is left as it is and named in
// "skipped", with why in "not_restored".
//
// An undo or redo that can put back no file is refused (a *RestoreError)
// and changes nothing: it writes no line, or, when every file failed once
// its line was written, cancels it with the opposite line. A restore-to
// passes over a snapshot it cannot put back (that is how the stack gets
// past one for good), unless it can put back no file at all.

// Restore actions, as answers and the trail name them.
const (
	actionUndo    = "undo"
	actionRedo    = "redo"
	actionRestore = "restore"
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

func (e *RestoreError) Error() string { return refusedText(e.Why()) }

// Why is what the refusal says after the word.
func (e *RestoreError) Why() string {
	parts := make([]string, len(e.Files))
	for i, f := range e.Files {
		parts[i] = f.Path + " (" + f.Reason + ")"
	}
	verb := e.Action
	if verb == actionRestore {
		verb = actionUndo
	}
	return fmt.Sprintf("cannot %s %s (%s): no file could be put back: %s; nothing was changed",
		verb, e.Snapshot, e.Tool, strings.Join(parts, ", "))
}

func (e *RestoreError) Unwrap() error { return ErrRefused }

// Undo restores the files of the newest applied snapshot and keeps their
// current content for Redo. Nothing to undo is ErrRefused, and so is a
// snapshot none of whose files can be put back (a *RestoreError).
func (s *Session) Undo(ctx context.Context) (*RestoreResult, error) {
	return s.restore(ctx, actionUndo, "")
}

// Redo puts back what the newest undo kept. Nothing to redo is ErrRefused,
// and so is a redo that would overwrite a file changed since the undo, or
// one that can put back none of the files it should (a *RestoreError).
func (s *Session) Redo(ctx context.Context) (*RestoreResult, error) {
	return s.restore(ctx, actionRedo, "")
}

// RestoreTo undoes every applied snapshot down to and including id. An
// unknown or already undone id is ErrRefused. A snapshot none of whose
// files can be put back is passed over (named in its step), unless no
// file at all can be: then it is a *RestoreError.
func (s *Session) RestoreTo(ctx context.Context, id string) (*RestoreResult, error) {
	return s.restore(ctx, actionRestore, id)
}

// restoreRun is one undo, redo or restore-to at work.
type restoreRun struct {
	s       *Session
	fsys    vfs.FS
	objs    *objects.Store
	maxFile int64
	checked map[*fstate.State]verdict // content's verdicts, by state
	// item is the "item" of every line the run writes: the newest item
	// when it began. A line that cancels a step names the step's item, so
	// the two lie on the same side of any file revert's boundary however
	// much later the cancellation is written (internal/changes/cancel.go).
	item changes.ItemRef
}

// verdict is why a state cannot be put back ("" when it can), and the
// skip reason an undo keeps for it.
type verdict struct{ why, skip string }

func (s *Session) restore(ctx context.Context, action, id string) (*RestoreResult, error) {
	s.busy.RLock()
	defer s.busy.RUnlock()
	if s.isClosed() {
		return nil, fmt.Errorf("engine: session %s is closed", s.ID())
	}
	cfg, err := s.config()
	if err != nil {
		return nil, err
	}
	sc := cfg.Snapshots
	st := &s.snaps
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := s.payCancels(); err != nil {
		return nil, err
	}
	refuse := func(format string, a ...any) (*RestoreResult, error) {
		s.auditRestore(ctx, action, "refused", nil)
		return nil, refusedf("%s%s", fmt.Sprintf(format, a...), unreadNote(st.unread))
	}
	verb := action
	if verb == actionRestore {
		verb = actionUndo
	}
	if !sc.Enabled {
		return refuse("nothing to %s: snapshots are off (snapshots.enabled is false)", verb)
	}
	n := st.Cursor()
	var targets []*changes.Entry
	switch action {
	case actionUndo:
		if n == 0 {
			return refuse("nothing to undo")
		}
		targets = append(targets, st.Entries()[n-1])
	case actionRedo:
		if n == len(st.Entries()) {
			return refuse("nothing to redo")
		}
		targets = append(targets, st.Entries()[n])
	default:
		i := st.Find(id)
		if i < 0 {
			return refuse("no snapshot %q in this session", id)
		}
		if !st.Entries()[i].Applied {
			return refuse("snapshot %s is already undone", id)
		}
		for j := n - 1; j >= i; j-- {
			targets = append(targets, st.Entries()[j])
		}
	}
	fsys, done, err := s.ws.files()
	if err != nil {
		return nil, err
	}
	defer done()
	if err := s.snapReady(ctx); err != nil {
		return nil, err
	}
	r := &restoreRun{s: s, fsys: fsys, objs: s.snapObjects(), maxFile: sc.MaxFileBytes, checked: map[*fstate.State]verdict{}, item: s.newestItem()}
	res := &RestoreResult{OK: true, Action: action, Steps: []RestoreStep{}, Unread: st.unread}
	fail := func(err error) (*RestoreResult, error) {
		outcome := "failed"
		if errors.Is(err, ErrRefused) {
			outcome = "refused"
		}
		s.auditRestore(ctx, action, outcome, res.Steps)
		return nil, err
	}
	if action == actionRestore {
		if err := r.anyPreImage(ctx, targets, id); err != nil {
			return fail(err)
		}
	}
	for _, e := range targets {
		var step RestoreStep
		if action == actionRedo {
			step, err = r.redoOne(ctx, e)
		} else {
			kind := changes.KindUndo
			if action == actionRestore {
				kind = changes.KindRestore
			}
			step, err = r.undoOne(ctx, e, kind, action == actionRestore)
		}
		if err != nil {
			return fail(err)
		}
		res.Steps = append(res.Steps, step)
	}
	if action == actionRestore && !putBack(res.Steps) {
		// Every step was taken and none put a file back: the files are as
		// the restore found them. Cancel the steps, the last one first.
		rerr := &RestoreError{Action: action, Snapshot: id, Tool: targets[len(targets)-1].Rec.Tool}
		for _, step := range res.Steps {
			rerr.Files = append(rerr.Files, step.NotRestored...)
		}
		now := mkTime(s.ws.s.Now())
		lines := make([]any, 0, len(targets))
		for i := len(targets) - 1; i >= 0; i-- {
			lines = append(lines, redoLine(targets[i], now, r.item))
		}
		if err := s.cancel(lines...); err != nil {
			return fail(fmt.Errorf("engine: restore to %s put back no file: %w", id, err))
		}
		res.Steps = nil
		return fail(rerr)
	}
	res.Cursor = st.Cursor()
	s.auditRestore(ctx, action, "ok", res.Steps)
	return res, nil
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
func (r *restoreRun) anyPreImage(ctx context.Context, targets []*changes.Entry, id string) error {
	rerr := &RestoreError{Action: actionRestore, Snapshot: id, Tool: targets[len(targets)-1].Rec.Tool}
	for _, e := range targets {
		for _, f := range e.Rec.Files {
			why := r.content(ctx, f.Before, "its pre-image").why
			if why == "" {
				return nil
			}
			rerr.Files = append(rerr.Files, FileReason{r.s.ws.absPath(f.Path), why})
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
func (r *restoreRun) content(ctx context.Context, f *fstate.State, what string) verdict {
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
		err = r.objs.Verify(ctx, id)
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
func (r *restoreRun) refusal(action string, e *changes.Entry, why []string) *RestoreError {
	rerr := &RestoreError{Action: action, Snapshot: e.Rec.ID, Tool: e.Rec.Tool}
	for k, f := range e.Rec.Files {
		rerr.Files = append(rerr.Files, FileReason{r.s.ws.absPath(f.Path), why[k]})
	}
	if action == actionUndo {
		st := &r.s.snaps
		if i := st.Find(e.Rec.ID); i > 0 && st.Entries()[i-1].Applied {
			rerr.Below = st.Entries()[i-1].Rec.ID
		}
	}
	return rerr
}

// leave names file k of step as left as it was, and why.
func (r *restoreRun) leave(step *RestoreStep, rel, why string) {
	abs := r.s.ws.absPath(rel)
	step.Skipped = append(step.Skipped, abs)
	step.NotRestored = append(step.NotRestored, FileReason{abs, why})
}

// auditRestore writes session.snapshot_restore to the trail. A session that
// was never written stays unwritten.
func (s *Session) auditRestore(ctx context.Context, action, outcome string, steps []RestoreStep) {
	if !s.Recorded() {
		return
	}
	var as []auditStep
	for _, st := range steps {
		as = append(as, auditStep{ID: st.ID, Restored: len(st.Restored), Removed: len(st.Removed), Skipped: len(st.Skipped), Unchanged: len(st.Unchanged)})
	}
	if err := s.recordEvent(ctx, auditEvent{Event: "session.snapshot_restore", Outcome: outcome, Action: action, Steps: as}); err != nil {
		s.noticef("the restore could not be audited: %v", err)
	}
}

func newStep(e *changes.Entry) RestoreStep {
	return RestoreStep{ID: e.Rec.ID, At: e.Rec.At, Tool: e.Rec.Tool, Restored: []string{}, Removed: []string{}, Skipped: []string{}}
}
