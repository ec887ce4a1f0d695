package revert

import (
	"strings"
	"time"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/errs"
	"cairn/internal/vfs"
)

// Selection is what a file revert to a boundary puts back: the files
// (Targets), those it refuses over other sessions' changes (Conflicts),
// and how many calls after the boundary ran without a record
// (Unrecorded).
type Selection struct {
	Targets    []changes.Target
	Conflicts  []changes.Conflict
	Unrecorded int
}

// Select reads what a file revert of session self to the boundary after
// of item sel (made at selAt) puts back, from the session's changes
// journal (ss.Changes(self)). It refuses where the timeline cannot serve
// sel (Refusal) and where a record it needs was dropped by the store
// budget (the drops journal, drops). Each check that cannot read what it
// checks refuses too: a revert never goes ahead on "cannot tell".
func Select(fsys vfs.FS, ss Sessions, drops, self, sel string, selAt time.Time, after changes.Boundary) (*Selection, error) {
	tl, err := ReadTimeline(fsys, ss.Changes(self))
	if err != nil {
		return nil, err
	}
	if err := Refusal(tl, sel, selAt); err != nil {
		return nil, err
	}
	cut := tl.Cut(after)
	dropped, err := BudgetDrops(fsys, drops)
	if err != nil {
		return nil, err
	}
	if d := tl.DroppedAfter(cut, dropped); len(d) > 0 {
		return nil, errs.Refusedf("cannot revert files: %d record(s) it needs were dropped to keep the workspace's store within its size budget (%s)",
			len(d), strings.Join(d[:min(3, len(d))], ", "))
	}
	foreign, err := Foreign(fsys, ss, self, tl)
	if err != nil {
		return nil, err
	}
	targets, conflicts := tl.Targets(cut, foreign)
	return &Selection{Targets: targets, Conflicts: conflicts, Unrecorded: len(tl.CallsAfter(cut, after))}, nil
}
