package engine

import (
	"cairn/engine/internal/changes"
	"cairn/engine/internal/revert"
)

// Where a file revert reaches: the item it reverts to, the boundary that
// makes, and the refusal when the records do not reach back to it
// (revert_files.go).

// revertItem is the item a file revert to at goes to: the item, or for a
// compaction item its original, the last item of the stretch it replaced
// (refused when it cannot be found).
func revertItem(st *state, at string) (*Item, error) {
	it := st.Item(at)
	if it == nil {
		return nil, noItem(at, st.ID)
	}
	for n := 0; it.Type == Compaction; n++ {
		if len(it.Replaces) != 2 || st.Item(it.Replaces[1]) == nil || n > len(st.Order) {
			return nil, refusedf("cannot revert files to %s: it is a compaction whose original cannot be found", at)
		}
		it = st.Item(it.Replaces[1])
	}
	return it, nil
}

// revertAfter is the boundary rule of a file revert to sel
// (revert.After).
func revertAfter(st *state, sel *Item) changes.Boundary {
	return revert.After(st.Order, sel.ID, sel.Type == User, sel.At.Time)
}

// newestItem is the item written last (none: the conversation has no item
// yet): where a line lies among the items, the "item" of every line that
// changes files or may (changes.ItemRef).
func (s *Session) newestItem() changes.ItemRef {
	if s.opts.Elsewhere != nil {
		return changes.NewestItem(s.opts.Elsewhere().Item)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return changes.NewestItem(s.st.Newest())
}
