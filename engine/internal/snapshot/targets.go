package snapshot

import (
	"fmt"

	"cairn/engine/internal/changes"
)

// Targets is what action (ActionUndo, ActionRedo, ActionRestore down to
// and including id) puts back on stack st, newest first, or why there is
// nothing to do (why, a refusal's reason): snapshots are off (enabled
// false), nothing is applied or undone, or id is unknown or undone.
func Targets(st *changes.Stack, action, id string, enabled bool) (targets []*changes.Entry, why string) {
	verb := action
	if verb == ActionRestore {
		verb = ActionUndo
	}
	if !enabled {
		return nil, fmt.Sprintf("nothing to %s: snapshots are off (snapshots.enabled is false)", verb)
	}
	n, es := st.Cursor(), st.Entries()
	switch action {
	case ActionUndo:
		if n == 0 {
			return nil, "nothing to undo"
		}
		return []*changes.Entry{es[n-1]}, ""
	case ActionRedo:
		if n == len(es) {
			return nil, "nothing to redo"
		}
		return []*changes.Entry{es[n]}, ""
	}
	i := st.Find(id)
	if i < 0 {
		return nil, fmt.Sprintf("no snapshot %q in this session", id)
	}
	if !es[i].Applied {
		return nil, fmt.Sprintf("snapshot %s is already undone", id)
	}
	for j := n - 1; j >= i; j-- {
		targets = append(targets, es[j])
	}
	return targets, ""
}
