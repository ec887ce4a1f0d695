package engine

import (
	"cairn/engine/internal/trash"
	"cairn/engine/retention"
	"context"
	"errors"
	"fmt"
)

// RunRetention runs a trim or a forget as PlanRetention plans it, each
// session under its lock; a session opened, pinned or used since the plan
// was made is skipped and named in Skipped.
func (s *Store) RunRetention(ctx context.Context, opt RetentionOptions) (*RetentionPlan, error) {
	if opt.Action == ActionForget {
		if err := s.settleTrash(ctx); err != nil {
			return nil, err
		}
	}
	plan, err := s.PlanRetention(ctx, opt)
	if err != nil {
		return nil, err
	}
	total, done := plan.Removals(), 0
	for _, g := range plan.Groups {
		for _, e := range g.Remove {
			if err := ctx.Err(); err != nil {
				return plan, err
			}
			err := s.removeOne(ctx, opt.Action, e)
			if errors.Is(err, errSkipped) {
				plan.Skipped = append(plan.Skipped, e)
			} else if err != nil {
				return plan, err
			}
			done++
			if opt.Progress != nil {
				opt.Progress(done, total)
			}
		}
	}
	return plan, nil
}

// removeOne trims or forgets one session of a plan, under its lock.
func (s *Store) removeOne(ctx context.Context, action string, e retention.Entry) error {
	w := &Workspace{s: s, path: e.Directory, key: e.Key, dir: workspaceDir(e.Key), made: true}
	l, err := w.acquire(e.Session)
	if errors.Is(err, ErrBusy) {
		return errSkipped
	}
	if err != nil {
		return err
	}
	defer w.release(e.Session, l)
	rec, err := readRecord(s.fsys, w.dir, e.Session)
	if err == nil && rec.Pinned {
		return errSkipped
	}
	// Used since the plan (opened, written and closed again while the run
	// worked through the sessions before it): the plan's decision was taken
	// on activity it no longer has, so it is not carried out.
	if err == nil && (rec.UpdatedAt.After(e.Activity) || rec.OpenedAt.After(e.Activity)) {
		return errSkipped
	}
	if w.fileRevertPending(e.Session) {
		return errSkipped
	}
	switch action {
	case ActionTrim:
		return w.trimSession(ctx, e.Session)
	case ActionForget:
		if _, err := s.fsys.Lstat(trash.Entry(e.Session)); err == nil {
			// The trash holds an older session of this id (settleEntry left
			// both): moving this one in would overwrite it.
			return errSkipped
		}
		return w.forgetSession(ctx, e.Session)
	}
	return fmt.Errorf("%w: retention action %q", ErrBadInput, action)
}
