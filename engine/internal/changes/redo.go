package changes

import (
	"context"

	"cairn/engine/internal/fstate"
	"cairn/internal/vfs"
)

// Redo after a crash: a file tool whose new content fits in its change
// line writes it there ("after" inline) and does not wait for its
// folder's sync before it returns, nor does the next tool wait for it; the
// end of the turn syncs the folders of all of them at once (engine:
// fileSyncs). A crash before that may lose the rename of any of them while
// the lines after it are durable. The next owner, which finds them in
// Stack.Unsettled, makes them again from their lines when the machine
// started since (a power loss; a killed owner lost nothing, and a file as
// before was put back by hand): only the newest change, whose tool may
// have stopped before its write, may be unmade (Stack.Unmade), as before.

// Redoable reports whether every file change of e can be made again from
// its line alone: its after state inline, or absent (removed), and its
// pre-image not skipped. A file as before a change whose pre-image was
// skipped (too large to snapshot, say) cannot be told from a hand edit, so
// a crash that lost its rename could not be found (RedoPlan): such a change
// waits for its folder's sync as any other does.
func (e *Entry) Redoable() bool {
	for _, f := range e.Rec.Files {
		if (f.After != nil && !f.After.Inline()) || f.Before.IsSkipped() {
			return false
		}
	}
	return len(e.Rec.Files) > 0
}

// RedoesPrev reports whether the pending change, once the change after it
// was cancelled (Prev, pending again), is made again from its line rather
// than judged unmade in turn: its tool did not wait for its folder's sync
// and may have returned. Owner and reader judge alike (engine:
// loadChanges, Workspace.Snapshots).
func (st *Stack) RedoesPrev() bool {
	return st.HasPending() && st.pending.Redoable()
}

// RedoPlan is the plan that makes the unsettled changes (Unsettled) again
// where a crash lost them. For each file they changed, the target is the
// after state of the newest of them that changed it; a file that holds an
// earlier state of that chain (the first one's before, or the after of any
// but the newest) gets the target, when the target is in the line; a file
// as the target, or holding anything else (a hand edit since), is left.
func (st *Stack) RedoPlan(ctx context.Context, fsys vfs.FS) Plan {
	type chain struct {
		path   string
		states []*fstate.State // every state the chain passed through, the target last
	}
	var order []*chain
	byPath := map[string]*chain{}
	for _, e := range st.unsettled {
		for _, f := range e.Rec.Files {
			c := byPath[f.Path]
			if c == nil {
				c = &chain{path: f.Path, states: []*fstate.State{f.Before}}
				byPath[f.Path] = c
				order = append(order, c)
			} else {
				c.states = append(c.states, f.Before)
			}
			c.states = append(c.states, f.After)
		}
	}
	var p Plan
	for _, c := range order {
		target, earlier := c.states[len(c.states)-1], c.states[:len(c.states)-1]
		if target != nil && !target.Inline() {
			continue // not redoable: its tool waited for its folder (tools.Run.waitPrevious)
		}
		limit := fstate.SizeLimit(1, c.states...)
		cur, _ := fstate.Capture(ctx, fsys, fstate.HashSink, c.path, limit)
		if fstate.Same(cur, target) {
			continue
		}
		for _, s := range earlier {
			if !s.IsSkipped() && fstate.Same(cur, s) {
				p.Files = append(p.Files, File{Path: c.path, To: target, Check: true, Expect: cur, MaxRead: limit})
				break
			}
		}
	}
	return p
}
