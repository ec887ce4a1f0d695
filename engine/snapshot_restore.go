package engine

import (
	"context"
	"errors"
	"fmt"

	"cairn/engine/internal/snapshot"
)

// Undo, redo and restore-to: this file holds the locks, picks the
// snapshots and writes the trail; package snapshot runs them and its doc
// says what they promise.

// Undo restores the files of the newest applied snapshot and keeps their
// current content for Redo. Nothing to undo is ErrRefused, and so is a
// snapshot none of whose files can be put back (a *RestoreError).
func (s *Session) Undo(ctx context.Context) (*RestoreResult, error) {
	return s.restore(ctx, snapshot.ActionUndo, "")
}

// Redo puts back what the newest undo kept. Nothing to redo is ErrRefused,
// and so is a redo that would overwrite a file changed since the undo, or
// one that can put back none of the files it should (a *RestoreError).
func (s *Session) Redo(ctx context.Context) (*RestoreResult, error) {
	return s.restore(ctx, snapshot.ActionRedo, "")
}

// RestoreTo undoes every applied snapshot down to and including id, passing
// over one none of whose files can be put back (*RestoreError when none
// can be).
func (s *Session) RestoreTo(ctx context.Context, id string) (*RestoreResult, error) {
	return s.restore(ctx, snapshot.ActionRestore, id)
}

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
	targets, why := snapshot.Targets(&st.Stack, action, id, sc.Enabled)
	if why != "" {
		s.auditRestore(ctx, action, "refused", nil)
		return nil, refusedf("%s%s", why, unreadNote(st.unread))
	}
	fsys, done, err := s.ws.files()
	if err != nil {
		return nil, err
	}
	defer done()
	if err := s.snapReady(ctx); err != nil {
		return nil, err
	}
	unread := st.unread // as the run found it (a failed write refolds it)
	r := &snapshot.Run{Host: sessionHost{s: s}, Stack: &st.Stack, FS: fsys, Objs: s.snapObjects(), Applier: &s.apply, MaxFile: sc.MaxFileBytes, Item: s.newestItem()}
	steps, err := r.Restore(ctx, action, id, targets)
	if err != nil {
		outcome := "failed"
		if errors.Is(err, ErrRefused) {
			outcome = "refused"
		}
		s.auditRestore(ctx, action, outcome, steps)
		return nil, err
	}
	s.auditRestore(ctx, action, "ok", steps)
	return &RestoreResult{OK: true, Action: action, Cursor: st.Cursor(), Steps: steps, Unread: unread}, nil
}

// RestoreError refuses an undo, redo or restore-to that could put back no file.
type RestoreError = snapshot.RestoreError

// auditRestore writes session.snapshot_restore to the trail. A session that
// was never written stays unwritten.
func (s *Session) auditRestore(ctx context.Context, action, outcome string, steps []restoreStep) {
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
