package revert

import (
	"context"
	"fmt"
	"path"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/fstate"
)

// Unrevert of the file half, and the settling on open of a file revert or
// unrevert its owner did not finish.

// Unrevert puts back the files of stack, the file reverts since the last
// new work: a file changed since is a conflict and then nothing is
// unreverted.
func (r *Run) Unrevert(ctx context.Context, stack []*changes.Revert) (*FileRevert, error) {
	h := r.Host
	plan, conflicts, err := changes.UnrevertPlan(ctx, r.FS, stack, r.restorable)
	if err != nil {
		return nil, fmt.Errorf("engine: unrevert: %w; nothing was changed", err)
	}
	fr := &FileRevert{Applied: true, Files: []RevertedFile{}}
	for _, f := range plan.Files {
		if !f.Leave {
			fr.Files = append(fr.Files, RevertedFile{Path: h.AbsPath(f.Path), Action: "put back"})
		}
	}
	if len(conflicts) > 0 {
		return nil, r.ConflictError("unrevert", fr, conflicts)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	now := h.Now()
	var ids []string
	for _, rv := range stack {
		ids = append(ids, rv.ID)
	}
	id := changes.NewSnapID(now.Time)
	if err := h.WriteSynced(changes.UnrevertLine{V: 1, Kind: changes.KindUnrevert, ID: id, IDs: ids, At: now, Item: h.NewestItem()}); err != nil {
		return nil, fmt.Errorf("engine: unrevert: write its line: %w; nothing was changed", err)
	}
	left, syncErr := r.apply(ctx, plan, fr)
	if syncErr != nil {
		return nil, fmt.Errorf("engine: unrevert: sync folders: %w (the next open finishes it)", syncErr)
	}
	if err := h.WriteSynced(changes.DoneLine{V: 1, Kind: changes.KindUnreverted, ID: id, At: h.Now(), Left: left}); err != nil {
		return nil, fmt.Errorf("engine: unrevert: the files are back, but its end could not be recorded (the next open settles it): %w", err)
	}
	return fr, nil
}

// restorable reports whether state f can be put back from what the
// session's store holds.
func (r *Run) restorable(f *fstate.State) bool { return fstate.Restorable(r.Objs, f) }

// Unsettled reports whether tl ends in a file revert or unrevert whose
// owner stopped before its end line, and the folders of its files (where
// the temp files of a replace it stopped in lie).
func Unsettled(tl *changes.Timeline) (bool, map[string]bool) {
	u, rv := tl.Undoing, tl.Newest()
	if u == nil && (rv == nil || rv.Done) {
		return false, nil
	}
	dirs := map[string]bool{}
	for _, st := range []*changes.Step{u, stepOf(rv)} {
		if st != nil {
			for _, m := range st.Moves {
				dirs[path.Dir(m.Path)] = true
			}
		}
	}
	return true, dirs
}

// Settle settles what Unsettled found: an unrevert is finished (each file
// still as the revert left it gets what was kept); a revert is worked out
// from its files: adopted when every file holds what it put, else left
// pending and unfinished, naming the files it did not reach. It returns
// the notice to give ("" for none). Best effort: what cannot be written
// now is settled by the next open.
func (r *Run) Settle(ctx context.Context, tl *changes.Timeline) string {
	h, fsys := r.Host, r.FS
	u, rv := tl.Undoing, tl.Newest()
	now := h.Now()
	if u != nil {
		res := r.Applier.Apply(ctx, fsys, r.Objs, changes.RecoverUnrevertPlan(u, r.restorable))
		if res.Sync != nil {
			return ""
		}
		left := changes.NotAt(ctx, fsys, u.Moves)
		if h.WriteSynced(changes.DoneLine{V: 1, Kind: changes.KindUnreverted, ID: u.ID, At: now, Left: left}) == nil {
			return fmt.Sprintf("an unrevert stopped before it ended was finished (%d of %d files put back)", len(u.Moves)-len(left), len(u.Moves))
		}
		return ""
	}
	left := rv.Settle(ctx, fsys)
	if h.WriteSynced(changes.DoneLine{V: 1, Kind: changes.KindReverted, ID: rv.ID, At: now, Left: left}) != nil {
		return ""
	}
	if len(left) == 0 {
		return fmt.Sprintf("a file revert that had finished when cairn stopped was adopted (%d files); the conversation stays where it was", len(rv.Step.Moves))
	}
	return fmt.Sprintf("a file revert stopped before it finished: %d of %d files were not reverted; unrevert puts back what it changed, and new work keeps the files as they are",
		len(left), len(rv.Step.Moves))
}

func stepOf(r *changes.Revert) *changes.Step {
	if r == nil {
		return nil
	}
	return r.Step
}
