package revert

import (
	"time"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/errs"
	"cairn/internal/timefmt"
)

// Where a file revert reaches: the boundary an item makes, and the refusal
// when the records do not reach back to it.

// After is the boundary rule of a file revert to item sel, given the
// session's items in the order written (order), whether sel is a user
// prompt, and its time. A record belongs after it when the item it names
// ("call") was written after sel (sel a user prompt: from sel on, so its
// own turn is reverted too). Any other line, and a record naming no item
// the session holds (none, or one a fork holds from its parent's later
// turns), is placed by its "item", the newest item when it was written:
// after when that was sel or one written after it, before when the
// conversation had no item yet. Only a line whose "item" does not say
// (written before it was recorded) or names an item the session does not
// hold is placed by its time: times are kept to the millisecond, so a line
// and an item of the same millisecond tie, and their order is then a
// guess.
func After(order []string, sel string, prompt bool, selAt time.Time) changes.Boundary {
	idx := make(map[string]int, len(order))
	for i, id := range order {
		idx[id] = i
	}
	si := idx[sel]
	place := func(item changes.ItemRef, at timefmt.Time) bool {
		if item.Known && item.ID == "" {
			return false // before every item
		}
		if i, ok := idx[item.ID]; ok && item.Known {
			return i >= si
		}
		return at.After(selAt) || (prompt && at.Equal(selAt))
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

// Refusal refuses a file revert to item sel (written at selAt) that tl
// cannot serve: an earlier revert unfinished, recording off, or a boundary
// before the session's records start.
func Refusal(tl *changes.Timeline, sel string, selAt time.Time) error {
	if r := tl.Newest(); r != nil && r.Unfinished() {
		return errs.Refusedf("cannot revert files: an earlier file revert (%s) did not finish; unrevert puts back what it changed, or new work keeps the files as they are", r.ID)
	}
	if !tl.Off.IsZero() && !tl.Off.Before(tl.Start.Time) {
		return errs.Refusedf("cannot revert files: recording was off for this session since %s; a file revert cannot reach back past the point where recording comes back on", timefmt.Format(tl.Off.Time))
	}
	if !tl.Start.IsZero() && selAt.Before(tl.Start.Time) {
		why := "recording was off, or the session moved"
		switch tl.StartWhy {
		case "enabled":
			why = "recording was off before then"
		case "moved":
			why = "the session moved to this directory then"
		case "trimmed":
			why = "the session was trimmed then, which dropped its earlier change records"
		}
		return errs.Refusedf("cannot revert files to %s: the session's records start at %s, after it (%s)", sel, timefmt.Format(tl.Start.Time), why)
	}
	return nil
}
