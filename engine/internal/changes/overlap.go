package changes

import (
	"fmt"

	"cairn/engine/internal/fstate"
	"cairn/internal/timefmt"
)

// The overlap line: calls of a session that ran at the same time with
// scopes that meet (a unit; engine/internal/overlap) each write their
// own record or change line, and each may hold the others' changes. When
// the last of them ends, one overlap line says what the unit changed as
// a whole: each file from what it held when the first call covering it
// began to what it holds at the unit's end. Part of the format:
//
//	{"v":1,"kind":"overlap","id":UID,"at":T,"item":ITEM,
//	 "members":[{"id":SNAP,"call":ITEM,"item":ITEM}],"files":[{"path":P,"before":F|null,"after":F|null}]}
//
// "members" is the unit's calls in the order they began: "id" the record
// or change line each wrote ("" for a file tool that changed nothing),
// "call" the item it belongs to, "item" the newest item when it began (an
// agent's call, whose own item its transcript brings in later; absent,
// the overlap line's). "before" is stored (an object or
// inline), "after" by its hash at least, as a record line's. It is
// written after the last member's own lines.
//
// File revert reads a unit as one step, at the overlap line's place: the
// members' own lines count for nothing there (each may hold changes
// another made), and a revert reverts the whole unit or none of it. The
// undo stack reads the members' change lines as it always does: undo of
// a file tool's call puts back that call's own pre-images. A unit with no
// overlap line (a member interrupted) leaves its members' lines as they
// are, which file revert then refuses as interleaved where they meet.
const KindOverlap = "overlap"

// OverlapMember is one call of an overlap line.
type OverlapMember struct {
	ID   string  `json:"id,omitempty"`
	Call string  `json:"call,omitempty"`
	Item ItemRef `json:"item,omitzero"`
}

// OverlapLine is the shape of an overlap line, for writing.
type OverlapLine struct {
	V       int             `json:"v"`
	Kind    string          `json:"kind"`
	ID      string          `json:"id"`
	At      timefmt.Time    `json:"at"`
	Item    ItemRef         `json:"item,omitzero"`
	Members []OverlapMember `json:"members"`
	Files   []FileChange    `json:"files"`
}

// Unit is a unit of overlapping calls as the timeline reads it.
type Unit struct {
	Step *Step // the unit's step, at its overlap line
	// Members is the steps of its calls' own lines, in the order they
	// began (those that wrote none left out); Calls the items its calls
	// belong to, in that order, and Began where each began (the member's
	// "item", else the overlap line's).
	Members []*Step
	Calls   []string
	Began   []ItemRef
}

// overlap folds an overlap line: the unit's step, and each member's step
// marked as one of it.
func (tl *Timeline) overlap(l *Line) error {
	if !ValidSnapID(l.ID) || len(l.Members) == 0 || tl.snaps[l.ID] != nil {
		return fmt.Errorf("bad overlap line %q", l.ID)
	}
	st := &Step{Kind: KindOverlap, ID: l.ID, At: l.At, Item: l.Item, Record: true, Call: l.Members[0].Call}
	seen := map[string]bool{}
	for _, f := range l.Files {
		path := string(f.Path)
		if !fstate.ValidRel(path) || seen[path] || !f.Before.Valid(fstate.FormBefore) || !f.After.Valid(fstate.FormAfter) {
			return fmt.Errorf("overlap %s: bad file %q", l.ID, path)
		}
		seen[path] = true
		st.Moves = append(st.Moves, Move{Path: path, From: f.Before, To: f.After})
	}
	u := &Unit{Step: st}
	for _, m := range l.Members {
		if m.ID != "" && !ValidSnapID(m.ID) || m.Call != "" && !toolRE.MatchString(m.Call) {
			return fmt.Errorf("overlap %s: bad member %q", l.ID, m.ID)
		}
		u.Calls = append(u.Calls, m.Call)
		began := m.Item
		if !began.Known {
			began = l.Item
		}
		u.Began = append(u.Began, began)
		if ms := tl.snaps[m.ID]; m.ID != "" && ms != nil && ms.Kind != KindOverlap && ms.Unit == nil {
			u.Members = append(u.Members, ms)
		}
	}
	for _, ms := range u.Members {
		ms.Unit = u
	}
	st.Unit = u
	tl.newWork()
	tl.snaps[l.ID] = st
	tl.Steps = append(tl.Steps, st)
	return nil
}

// member reports whether st is one of a unit's calls' own lines (whose
// moves the unit's step holds for file revert).
func (st *Step) member() bool { return st.Unit != nil && st.Unit.Step != st }

// overlapConflicts is the files a revert from cut cannot put back because
// of a unit of calls that ran at the same time: a unit some of whose calls
// lie before the cut and some after, or that the boundary Cut was given
// places on both sides (what a file held at the revert's point, while
// they ran, is not recorded), and a file a unit's calls cover that an
// undo, redo or revert between their lines changed (made while they ran).
func (tl *Timeline) overlapConflicts(cut int) map[string]Conflict {
	var bad map[string]Conflict
	at := map[*Step]int{}
	for i, st := range tl.Steps {
		if st.Unit != nil {
			at[st] = i
		}
	}
	mark := func(p, detail string) {
		if bad == nil {
			bad = map[string]Conflict{}
		}
		if _, ok := bad[p]; !ok {
			bad[p] = Conflict{ConflictInterleaved, p, detail}
		}
	}
	for j := cut; j < len(tl.Steps); j++ {
		u := tl.Steps[j].Unit
		if u == nil || u.Step != tl.Steps[j] {
			continue
		}
		paths := map[string]bool{}
		first := j
		for _, st := range append([]*Step{u.Step}, u.Members...) {
			for _, m := range st.Moves {
				paths[m.Path] = true
			}
			first = min(first, at[st])
		}
		if first < cut || tl.split[u] {
			for p := range paths {
				mark(p, "calls that ran at the same time changed it, some before the revert's point and some after: what it held there is not recorded")
			}
			continue
		}
		for k := first + 1; k < j; k++ {
			// Another call's line there is consistent with the unit's:
			// a call alone whose scope did not meet the unit's when it
			// began, which a call covering its files joined only once
			// it ended, or it would be one of the unit's.
			if st := tl.Steps[k]; st.Unit != u && !st.Record {
				for _, m := range st.Moves {
					if paths[m.Path] {
						mark(m.Path, "it changed while calls that ran at the same time were running, by something other than them")
					}
				}
			}
		}
	}
	return bad
}
