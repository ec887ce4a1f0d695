package engine

import (
	"context"
	"fmt"

	"cairn/engine/internal/fileplan"
	"cairn/engine/internal/trash"
)

// Forget, restore and trim are each all or nothing for a session: before
// it changes anything, each writes a plan, plans/<id>.json, and removes it
// last, holding the session's lock for the plan's life. The next open of
// the store settles a plan a crash left behind (package trash says how
// each kind and stage is replayed or rolled back), so no listing after an
// open shows a session split between the workspace and the trash.

// newPlan is a plan of kind for session id of w.
func (w *Workspace) newPlan(kind, id, stage string) *fileplan.Plan {
	return &fileplan.Plan{V: 1, Kind: kind, Session: id, Workspace: w.key, Path: w.path, At: mkTime(w.s.Now()), Stage: stage}
}

// planSession is session id of w as package trash settles its plan.
type planSession struct {
	w  *Workspace
	id string
}

func (p planSession) Trim(ctx context.Context, pl *fileplan.Plan) error {
	return p.w.runTrim(ctx, p.id, pl.At)
}
func (p planSession) Rebuild(ctx context.Context) error { return p.w.rebuildRecord(ctx, p.id) }
func (p planSession) SettleRecord()                     { p.w.settleRecord(p.id) }

// forgetSession moves session id into the trash (trash.Forget); the caller
// holds its lock, and the trash holds no entry of id.
func (w *Workspace) forgetSession(ctx context.Context, id string) error {
	if err := trash.Forget(ctx, w.s.fsys, w.dir, w.newPlan(trash.KindForget, id, fileplan.StageCopy)); err != nil {
		return fmt.Errorf("engine: forget %s: %w", id, err)
	}
	return nil
}

// restoreSession brings session id back from its trash entry
// (trash.Restore); the caller holds its lock, and its workspace has no
// items journal of id.
func (w *Workspace) restoreSession(ctx context.Context, id string) error {
	p := w.newPlan(trash.KindRestore, id, fileplan.StageCopy)
	if err := trash.Restore(ctx, w.s.fsys, w.dir, p); err != nil {
		return err
	}
	return trash.FinishRestore(ctx, w.s.fsys, p, planSession{w, id})
}

// trimSession trims session id (runTrim) under a plan; the caller holds
// its lock.
func (w *Workspace) trimSession(ctx context.Context, id string) error {
	fi, err := w.s.fsys.Stat(itemsName(w.dir, id))
	if err != nil {
		return fmt.Errorf("engine: trim %s: %w", id, err)
	}
	p := w.newPlan(trash.KindTrim, id, fileplan.StageRun)
	p.ItemsSize = fi.Size()
	if err := fileplan.Write(w.s.fsys, trash.PlansDir, p); err != nil {
		return fmt.Errorf("engine: trim %s: %w", id, err)
	}
	if err := w.runTrim(ctx, id, p.At); err != nil {
		return err
	}
	return fileplan.Done(w.s.fsys, trash.PlansDir, id)
}

// pendingPlans lists the sessions that have a plan in plans/.
func (s *Store) pendingPlans() map[string]bool { return trash.Pending(s.fsys) }

// recoverPlans settles the plans a crash left in plans/ (trash.Recover).
func (s *Store) recoverPlans() {
	trash.Recover(context.Background(), s.fsys, func(p *fileplan.Plan) trash.Session {
		w := &Workspace{s: s, path: p.Path, key: p.Workspace, dir: workspaceDir(p.Workspace), made: true}
		return planSession{w, p.Session}
	})
}

// fsckPlans notes each plan in plans/ (trash.FsckPlans).
func (s *Store) fsckPlans(bad, note reporter) { trash.FsckPlans(s.fsys, bad, note) }
