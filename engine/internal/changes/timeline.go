package changes

import (
	"fmt"
	"slices"

	"cairn/engine/internal/fstate"
	"cairn/internal/timefmt"
)

// Timeline is the fold of a changes journal that file revert reads: every
// line that changed files, in journal order, as the moves it made (a
// file's state from, and to), and what a revert must know besides. Like
// Stack it is a pure fold, one line at a time (Fold).
type Timeline struct {
	Steps []*Step
	// Calls is the calls that ran, or may have run, without a record: an
	// "unrecorded" line, or a "call" line no record closed (still running,
	// or interrupted).
	Calls []*CallMark
	// Start is when the session's records begin: the newest "start" line
	// written when recording came back on ("enabled") or the session moved
	// ("moved"); zero: its first change. Off is the newest "off" line: after
	// Start, recording is off.
	Start, Off timefmt.Time
	// StartWhy is the why of the start line that set Start: "enabled",
	// "moved" or "trimmed".
	StartWhy string
	// Dropped is the records whose objects the store budget may have
	// dropped.
	Dropped map[string]bool
	// Stack is the reverts since new work, oldest first: what an unrevert
	// undoes. Undoing is an unrevert whose files may not all be back (no
	// "unreverted" line yet).
	Stack    []*Revert
	Undoing  *Step
	snaps    map[string]*Step           // change lines by snapshot id
	kept     map[string][]*fstate.State // what the latest undo of a snapshot kept
	reverts  map[string]*Revert         // every complete revert, by id
	assembly map[string]*Revert         // reverts whose parts are not all read
	split    map[*Unit]bool             // units the last Cut's boundary splits
}

// Step is one line that changed files.
type Step struct {
	Kind string // change, record, undo, restore, redo, revert, unrevert
	ID   string
	Call string // a change or record: the item it names
	Tool string // a change or record: the tool that made it
	// Item is the newest item of the conversation when its line was
	// written (unknown when the line does not say).
	Item ItemRef
	At   timefmt.Time
	// Record: a change or record line, which names its call (or an
	// overlap line, which names its first call's).
	Record bool
	Moves  []Move
	// Unit: the step is an overlap line's, or the line of one of its
	// calls, once the overlap line is read (overlap.go).
	Unit *Unit
}

// Move is what a line did to one file.
type Move struct {
	Path     string
	From, To *fstate.State
}

// CallMark is a call without a record, at its place among the steps.
type CallMark struct {
	ID, Call string
	Item     ItemRef // its call line's (or unrecorded line's) "item"
	At       timefmt.Time
	Pos      int  // the number of steps before it
	Open     bool // a call line no record or unrecorded line closed yet
	Why      string
}

// Fold folds one decoded line. A line that does not fit (damaged, naming
// what the journal does not hold) is skipped with an error, as Stack.Fold
// skips one.
func (tl *Timeline) Fold(l *Line) error {
	if tl.snaps == nil {
		tl.snaps, tl.kept, tl.reverts, tl.assembly = map[string]*Step{}, map[string][]*fstate.State{}, map[string]*Revert{}, map[string]*Revert{}
		tl.Dropped = map[string]bool{}
	}
	switch l.Kind {
	case KindChange, KindRecord:
		return tl.record(l)
	case KindCall:
		tl.newWork()
		tl.Calls = append(tl.Calls, &CallMark{ID: l.ID, Call: l.Call, Item: l.Item, At: l.At, Pos: len(tl.Steps), Open: true})
	case KindUnrecorded:
		tl.newWork()
		if m := tl.openCall(l.ID); m != nil {
			m.Open, m.Why = false, l.Why
		} else {
			tl.Calls = append(tl.Calls, &CallMark{ID: l.ID, Call: l.Call, Item: l.Item, At: l.At, Pos: len(tl.Steps), Why: l.Why})
		}
	case KindUndo, KindRestore:
		snap := tl.snaps[l.ID]
		if snap == nil || snap.Kind != KindChange || len(l.Files) != len(snap.Moves) {
			return fmt.Errorf("undo of %s, which the journal does not hold", l.ID)
		}
		for i, f := range l.Files {
			// The files of the change, in its order, as the undo stack
			// folds them (Stack.Fold): a damaged line moves nothing.
			if string(f.Path) != snap.Moves[i].Path || !f.Kept.Valid(fstate.FormBefore) {
				return fmt.Errorf("undo of %s names other files", l.ID)
			}
		}
		tl.newWork()
		st := &Step{Kind: l.Kind, ID: l.ID, At: l.At, Item: l.Item}
		kept := make([]*fstate.State, len(l.Files))
		for i, f := range l.Files {
			kept[i] = f.Kept
			before := snap.Moves[i].From
			if f.Kept.IsSkipped() || fstate.Same(f.Kept, before) {
				continue // left as it was
			}
			st.Moves = append(st.Moves, Move{Path: string(f.Path), From: f.Kept, To: before})
		}
		tl.kept[l.ID] = kept
		tl.Steps = append(tl.Steps, st)
	case KindRedo:
		snap, kept := tl.snaps[l.ID], tl.kept[l.ID]
		if snap == nil || len(kept) != len(snap.Moves) {
			return fmt.Errorf("redo of %s, which has no undo", l.ID)
		}
		tl.newWork()
		st := &Step{Kind: l.Kind, ID: l.ID, At: l.At, Item: l.Item}
		for i, m := range snap.Moves {
			if !kept[i].IsSkipped() && !fstate.Same(kept[i], m.From) {
				st.Moves = append(st.Moves, Move{Path: m.Path, From: m.From, To: kept[i]})
			}
		}
		tl.Steps = append(tl.Steps, st)
	case KindAbort:
		if i := slices.IndexFunc(tl.Steps, func(s *Step) bool { return s.Record && s.ID == l.ID }); i >= 0 {
			tl.Steps = slices.Delete(tl.Steps, i, i+1)
			delete(tl.snaps, l.ID)
		}
	case KindDrop:
		if l.Why == WhyStoreBudget {
			for _, id := range l.IDs {
				tl.Dropped[id] = true
			}
		}
	case KindStart:
		// A fork starts where its parent does, its pending revert state
		// clean (the parent's reverts are not the child's to unrevert);
		// the first start line of a session only says its first call was
		// recorded (every call before it was a file tool's, and they
		// always record).
		switch l.Why {
		case "fork":
			tl.Stack, tl.Undoing = nil, nil
		case "first":
		default:
			tl.Start, tl.StartWhy = l.At, l.Why
		}
	case KindOff:
		tl.Off = l.At
	case KindOverlap:
		return tl.overlap(l)
	case KindRevert:
		return tl.revertPart(l)
	case KindReverted:
		r := tl.reverts[l.ID]
		if r == nil {
			return fmt.Errorf("reverted %s, which the journal does not hold", l.ID)
		}
		r.Done, r.Left = true, map[string]bool{}
		for _, p := range l.Left {
			r.Left[p] = true
		}
		r.Step.Moves = slices.DeleteFunc(r.Step.Moves, func(m Move) bool { return r.Left[m.Path] })
	case KindUnrevert:
		if len(tl.Stack) == 0 || !slices.Equal(l.IDs, tl.stackIDs()) {
			return fmt.Errorf("unrevert of %v, which is not the stack of reverts", l.IDs)
		}
		st := &Step{Kind: KindUnrevert, ID: l.ID, At: l.At, Item: l.Item, Moves: UnrevertMoves(tl.Stack)}
		tl.Steps = append(tl.Steps, st)
		tl.Stack, tl.Undoing = nil, st
	case KindUnreverted:
		if tl.Undoing == nil || tl.Undoing.ID != l.ID {
			return fmt.Errorf("unreverted %s, which is not the unrevert in progress", l.ID)
		}
		left := map[string]bool{}
		for _, p := range l.Left {
			left[p] = true
		}
		tl.Undoing.Moves = slices.DeleteFunc(tl.Undoing.Moves, func(m Move) bool { return left[m.Path] })
		tl.Undoing = nil
	}
	return nil
}

// newWork ends the stack of reverts: new work keeps the reverted files.
func (tl *Timeline) newWork() { tl.Stack = nil }

func (tl *Timeline) openCall(id string) *CallMark {
	for i := len(tl.Calls) - 1; i >= 0; i-- {
		if m := tl.Calls[i]; m.Open && m.ID == id {
			return m
		}
	}
	return nil
}

// record folds a change line (a file tool) or a record line (a recorded
// call, which closes its call line).
func (tl *Timeline) record(l *Line) error {
	if l.Kind == KindRecord {
		if !ValidSnapID(l.ID) {
			return fmt.Errorf("bad record id %q", l.ID)
		}
		if m := tl.openCall(l.ID); m != nil {
			tl.Calls = slices.DeleteFunc(tl.Calls, func(c *CallMark) bool { return c == m })
		}
		if len(l.Files) == 0 {
			tl.newWork()
			return nil // the call changed nothing
		}
	} else {
		if err := CheckChange(l); err != nil {
			return err
		}
	}
	if tl.snaps[l.ID] != nil {
		return fmt.Errorf("record %s twice", l.ID)
	}
	tl.newWork()
	st := &Step{Kind: l.Kind, ID: l.ID, Call: l.Call, Tool: l.Tool, Item: l.Item, At: l.At, Record: true}
	for _, f := range l.Files {
		if !fstate.ValidRel(string(f.Path)) || !f.Before.Valid(fstate.FormBefore) || !f.After.Valid(fstate.FormAfter) {
			return fmt.Errorf("bad file %q", string(f.Path))
		}
		st.Moves = append(st.Moves, Move{Path: string(f.Path), From: f.Before, To: f.After})
	}
	tl.snaps[l.ID] = st
	tl.Steps = append(tl.Steps, st)
	return nil
}

// NewestRecord is the newest record step (a file tool's change line or
// another call's record line), or nil.
func (tl *Timeline) NewestRecord() *Step {
	for i := len(tl.Steps) - 1; i >= 0; i-- {
		if tl.Steps[i].Record {
			return tl.Steps[i]
		}
	}
	return nil
}

// Net is what the record steps pick selects did together, one move per
// file in the order the files were first changed: from the state the
// first of them found to the state the last of them left. A file they
// left as they found it is not named.
func (tl *Timeline) Net(pick func(*Step) bool) []Move {
	var out []Move
	at := map[string]int{}
	for _, s := range tl.Steps {
		if !s.Record || !pick(s) {
			continue
		}
		for _, m := range s.Moves {
			if i, ok := at[m.Path]; ok {
				out[i].To = m.To
				continue
			}
			at[m.Path] = len(out)
			out = append(out, m)
		}
	}
	return slices.DeleteFunc(out, func(m Move) bool { return fstate.Same(m.From, m.To) })
}
