package engine

import (
	"cairn/engine/internal/changes"
	"cairn/internal/timefmt"
)

// Where a file revert reaches: the item it reverts to, the boundary that
// makes, and the refusal when the records do not reach back to it
// (revert_files.go).

// revertItem is the item a file revert to at goes to: the item, or for a
// compaction item its original, the last item of the stretch it replaced
// (refused when it cannot be found).
func revertItem(st *state, at string) (*Item, error) {
	it := st.Items[at]
	if it == nil {
		return nil, noItem(at, st.ID)
	}
	for n := 0; it.Type == Compaction; n++ {
		if len(it.Replaces) != 2 || st.Items[it.Replaces[1]] == nil || n > len(st.Order) {
			return nil, refusedf("cannot revert files to %s: it is a compaction whose original cannot be found", at)
		}
		it = st.Items[it.Replaces[1]]
	}
	return it, nil
}

// revertAfter is the boundary rule of a file revert to sel. A record
// belongs after it when the item it names ("call") was written after sel
// (sel a user prompt: from sel on, so its own turn is reverted too). Any
// other line, and a record naming no item the session holds (none, or one
// a fork holds from its parent's later turns), is placed by its "item",
// the newest item when it was written: after when that was sel or one
// written after it, before when the conversation had no item yet. Only a
// line whose "item" does not say (written before it was recorded) or
// names an item the session does not hold is placed by its time: times
// are kept to the millisecond, so a line and an item of the same
// millisecond tie, and their order is then a guess.
func revertAfter(st *state, sel *Item) changes.Boundary {
	idx := make(map[string]int, len(st.Order))
	for i, id := range st.Order {
		idx[id] = i
	}
	si, prompt := idx[sel.ID], sel.Type == User
	place := func(item changes.ItemRef, at timefmt.Time) bool {
		if item.Known && item.ID == "" {
			return false // before every item
		}
		if i, ok := idx[item.ID]; ok && item.Known {
			return i >= si
		}
		return at.After(sel.At.Time) || (prompt && at.Equal(sel.At.Time))
	}
	return changes.Boundary{
		Record: func(call string, item changes.ItemRef, at timefmt.Time) bool {
			if i, ok := idx[call]; ok && call != "" {
				return i > si || (prompt && i == si)
			}
			return place(item, at)
		},
		Event: place,
	}
}

// newestItem is the item written last (none: the conversation has no item
// yet): where a line lies among the items, the "item" of every line that
// changes files or may (changes.ItemRef).
func (s *Session) newestItem() changes.ItemRef {
	s.mu.Lock()
	defer s.mu.Unlock()
	return changes.NewestItem(s.st.Newest())
}

// revertRefusal refuses a file revert to sel that tl cannot serve: an
// earlier revert unfinished, recording off, or a boundary before the
// session's records start.
func revertRefusal(tl *changes.Timeline, sel *Item) error {
	if r := tl.Newest(); r != nil && r.Unfinished() {
		return refusedf("cannot revert files: an earlier file revert (%s) did not finish; unrevert puts back what it changed, or new work keeps the files as they are", r.ID)
	}
	if !tl.Off.IsZero() && !tl.Off.Before(tl.Start.Time) {
		return refusedf("cannot revert files: recording was off for this session since %s; a file revert cannot reach back past the point where recording comes back on", timefmt.Format(tl.Off.Time))
	}
	if !tl.Start.IsZero() && sel.At.Before(tl.Start.Time) {
		why := "recording was off, or the session moved"
		switch tl.StartWhy {
		case "enabled":
			why = "recording was off before then"
		case "moved":
			why = "the session moved to this directory then"
		case "trimmed":
			why = "the session was trimmed then, which dropped its earlier change records"
		}
		return refusedf("cannot revert files to %s: the session's records start at %s, after it (%s)", sel.ID, timefmt.Format(tl.Start.Time), why)
	}
	return nil
}
