package engine

import (
	"context"
	"time"

	"cairn/engine/internal/prune"
	"cairn/engine/internal/stats"
)

// Prune removes what nothing needs any more, each kind only once it is at
// least TrashDays days old (temp files of gone writers whatever their
// age): old trash, orphaned files of sessions that do not exist, and
// objects nothing names (package prune lists them). storage stats adds up
// the same list, so its estimate is what a prune then frees. A prune cut
// short is finished by the next. The usage ledger is never touched.

// PruneReport says what a prune removed and freed (prune.Report).
type PruneReport = prune.Report

// PruneOptions tune a prune.
type PruneOptions struct {
	// Progress, when set, is told how many workspaces are done of how many.
	Progress func(done, total int)
}

// Prune runs the prune: it settles the trash, then removes what the plan
// lists, each thing checked again just before it goes.
func (s *Store) Prune(ctx context.Context, opt PruneOptions) (PruneReport, error) {
	if err := s.settleTrash(ctx); err != nil {
		return PruneReport{}, err
	}
	now := s.now()
	wss, err := s.pruneWorkspaces()
	if err != nil {
		return PruneReport{}, err
	}
	items, unsure, err := prune.Plan(ctx, s.fsys, now, trashGrace, wss)
	if err != nil {
		return PruneReport{}, err
	}
	r, err := prune.Run(ctx, s.fsys, now, trashGrace, items, wss, opt.Progress)
	if err != nil {
		return r, err
	}
	return r, unsure
}

// pruneWorkspaces is every sound workspace as package prune reads it
// (Workspaces' problems are left alone).
func (s *Store) pruneWorkspaces() ([]prune.Workspace, error) {
	wss, _, err := s.Workspaces()
	if err != nil {
		return nil, err
	}
	out := make([]prune.Workspace, len(wss))
	for i, w := range wss {
		out[i] = prune.Workspace{Dir: w.dir, Key: w.key, Path: w.path, Objects: w.objects(), Drops: w.readDrops}
	}
	return out, nil
}

// prunePlan lists what a prune at now removes (package prune); unsure
// says why the objects of a store are left out.
func (s *Store) prunePlan(ctx context.Context, now time.Time) (items []prune.Item, unsure, err error) {
	wss, err := s.pruneWorkspaces()
	if err != nil {
		return nil, nil, err
	}
	return prune.Plan(ctx, s.fsys, now, trashGrace, wss)
}

// reclaim adds up what items take, by kind.
func reclaim(items []prune.Item) Reclaim {
	t := prune.Totals(items)
	var all stats.Size
	for _, z := range t {
		all.Add(z)
	}
	return Reclaim{Size: Size(all), Temps: Size(t[prune.Temp]), OrphanOutputs: Size(t[prune.Outputs]),
		OrphanFiles: Size(t[prune.Orphan]), UnreferencedObjects: Size(t[prune.Object]), OldTrash: Size(t[prune.Trash])}
}
