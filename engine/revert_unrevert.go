package engine

import (
	"context"
	"fmt"
	"path"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/fstate"
)

// Unrevert of the file half, and the settling on open of a file revert or
// unrevert its owner did not finish (revert_files.go draws the whole).

// unrevertFiles puts back the files of the stack of file reverts since the
// last new work: nil when there is none. The caller holds busy and the
// undo stack's lock.
func (s *Session) unrevertFiles(ctx context.Context) (*FileRevert, error) {
	tl, err := s.ws.timeline(s.st.ID)
	if err != nil {
		return nil, err
	}
	if !tl.Pending() {
		return nil, nil
	}
	if s.readOnly {
		return nil, refusedf("session %s is open read-only: its files cannot be unreverted", s.ID())
	}
	if err := s.payCancels(); err != nil {
		return nil, err
	}
	lock, err := s.lockCallsAlone("unrevert")
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	fsys, done, err := s.ws.files()
	if err != nil {
		return nil, err
	}
	defer done()
	objs := s.snapObjects()
	plan, conflicts, err := changes.UnrevertPlan(ctx, fsys, tl.Stack, func(f *fstate.State) bool { return fstate.Restorable(objs, f) })
	if err != nil {
		return nil, fmt.Errorf("engine: unrevert: %w; nothing was changed", err)
	}
	fr := &FileRevert{Applied: true, Files: []RevertedFile{}}
	for _, f := range plan.Files {
		if !f.Leave {
			fr.Files = append(fr.Files, RevertedFile{Path: s.ws.absPath(f.Path), Action: "put back"})
		}
	}
	if len(conflicts) > 0 {
		return nil, s.conflictError("unrevert", fr, conflicts)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	now := mkTime(s.ws.s.Now())
	var ids []string
	for _, r := range tl.Stack {
		ids = append(ids, r.ID)
	}
	id := changes.NewSnapID(now.Time)
	if err := s.writeChanges(synced, changes.UnrevertLine{V: 1, Kind: changes.KindUnrevert, ID: id, IDs: ids, At: now, Item: s.newestItem()}); err != nil {
		return nil, fmt.Errorf("engine: unrevert: write its line: %w; nothing was changed", err)
	}
	left, syncErr := s.applyRevert(ctx, fsys, objs, plan, fr)
	if syncErr != nil {
		return nil, fmt.Errorf("engine: unrevert: sync folders: %w (the next open finishes it)", syncErr)
	}
	if err := s.writeChanges(synced, changes.DoneLine{V: 1, Kind: changes.KindUnreverted, ID: id, At: mkTime(s.ws.s.Now()), Left: left}); err != nil {
		return nil, fmt.Errorf("engine: unrevert: the files are back, but its end could not be recorded (the next open settles it): %w", err)
	}
	return fr, nil
}

// settleReverts settles, on open, a file revert or unrevert whose owner
// stopped before its end line: an unrevert is finished (each file still as
// the revert left it gets what was kept); a revert is worked out from its
// files: adopted with a notice when every file holds what it put, else
// left pending and unfinished, naming the files it did not reach. Best
// effort: what cannot be written now is settled by the next open.
func (s *Session) settleReverts(ctx context.Context) {
	tl, err := s.ws.timeline(s.st.ID)
	if err != nil {
		return
	}
	u, r := tl.Undoing, tl.Newest()
	if u == nil && (r == nil || r.Done) {
		return
	}
	fsys, done, err := s.ws.files()
	if err != nil {
		return
	}
	defer done()
	dirs := map[string]bool{}
	for _, st := range []*changes.Step{u, stepOf(r)} {
		if st != nil {
			for _, m := range st.Moves {
				dirs[path.Dir(m.Path)] = true
			}
		}
	}
	s.ws.sweepWorkspace(dirs) // the temp files of a replace it stopped in
	now := mkTime(s.ws.s.Now())
	if u != nil {
		objs := s.snapObjects()
		res := s.apply.Apply(ctx, fsys, objs, changes.RecoverUnrevertPlan(u, func(f *fstate.State) bool { return fstate.Restorable(objs, f) }))
		if res.Sync != nil {
			return
		}
		left := changes.NotAt(ctx, fsys, u.Moves)
		if s.writeChanges(synced, changes.DoneLine{V: 1, Kind: changes.KindUnreverted, ID: u.ID, At: now, Left: left}) == nil {
			s.notice(fmt.Sprintf("an unrevert stopped before it ended was finished (%d of %d files put back)", len(u.Moves)-len(left), len(u.Moves)))
		}
		return
	}
	left := r.Settle(ctx, fsys)
	if s.writeChanges(synced, changes.DoneLine{V: 1, Kind: changes.KindReverted, ID: r.ID, At: now, Left: left}) != nil {
		return
	}
	if len(left) == 0 {
		s.notice(fmt.Sprintf("a file revert that had finished when cairn stopped was adopted (%d files); the conversation stays where it was", len(r.Step.Moves)))
		return
	}
	s.notice(fmt.Sprintf("a file revert stopped before it finished: %d of %d files were not reverted; unrevert puts back what it changed, and new work keeps the files as they are",
		len(left), len(r.Step.Moves)))
}

func stepOf(r *changes.Revert) *changes.Step {
	if r == nil {
		return nil
	}
	return r.Step
}

// pendingQuick reports whether session id has file reverts to unrevert,
// from its journal (an error reads as none).
func (w *Workspace) pendingQuick(id string) bool {
	ok, _ := w.PendingRevert(context.Background(), id)
	return ok
}
