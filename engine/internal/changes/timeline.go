package changes

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"cairn/engine/internal/fstate"
	"cairn/internal/timefmt"
)

// File revert's lines of the changes journal. Part of the format (drawn
// with the others in format.go):
//
//	{"v":1,"kind":"revert","id":RID,"at":T,"part":K,"parts":N,"to":ITEM,"item":ITEM,
//	 "files":[{"path":P,"kept":F|null,"put":F|null}]}
//	{"v":1,"kind":"reverted","id":RID,"at":T,"left":[P...]}
//	{"v":1,"kind":"unrevert","id":UID,"ids":[RID...],"at":T,"item":ITEM}
//	{"v":1,"kind":"unreverted","id":UID,"at":T,"left":[P...]}
//
// A file revert writes its revert line (in N parts, K counting from 1, so
// that no line passes the journal's line cap; a revert with parts missing
// never started and is ignored) and syncs it before it changes any file:
// "kept" is what the file held, stored (an object or inline), which an
// unrevert puts back; "put" is what the revert gives it, by hash (its
// content is a record's). "to" is the item the revert went to; "item", on
// this line as on the others, the newest item when it was written
// (format.go). Once its
// files are durable it writes "reverted": "left" names the files it could
// not write, which keep their "kept" content. A revert line with no
// "reverted" line was stopped (a crash): the next owner compares the files
// with "put" and writes the "reverted" line for it, naming the files not
// reverted; with none left the revert finished and is adopted.
//
// Reverts stack until new work: a change, record or call line (new work
// keeps the reverted files as they are) or an undo or redo. An unrevert
// line names the stack it undoes, oldest first, and is written (synced)
// before its files change: each file the stack reverted gets the "kept"
// of the oldest revert that reverted it, while it still holds the "put" of
// the newest one. "unreverted" follows as "reverted" does; an unrevert
// without it is finished by the next owner.
const (
	KindRevert     = "revert"
	KindReverted   = "reverted"
	KindUnrevert   = "unrevert"
	KindUnreverted = "unreverted"
)

// RevertFile is one file of a revert line.
type RevertFile struct {
	Path string        `json:"path"`
	Kept *fstate.State `json:"kept"`
	Put  *fstate.State `json:"put"`
}

// The line shapes of file revert, for writing.
type (
	RevertLine struct {
		V     int          `json:"v"`
		Kind  string       `json:"kind"`
		ID    string       `json:"id"`
		At    timefmt.Time `json:"at"`
		Part  int          `json:"part"`
		Parts int          `json:"parts"`
		To    string       `json:"to,omitempty"`
		Item  ItemRef      `json:"item,omitzero"`
		Files []RevertFile `json:"files"`
	}
	// DoneLine is a reverted or unreverted line.
	DoneLine struct {
		V    int          `json:"v"`
		Kind string       `json:"kind"`
		ID   string       `json:"id"`
		At   timefmt.Time `json:"at"`
		Left fstate.Names `json:"left,omitempty"`
	}
	UnrevertLine struct {
		V    int          `json:"v"`
		Kind string       `json:"kind"`
		ID   string       `json:"id"`
		IDs  []string     `json:"ids"`
		At   timefmt.Time `json:"at"`
		Item ItemRef      `json:"item,omitzero"`
	}
)

// tlLine is any line of the journal as the timeline reads it.
type tlLine struct {
	V     int          `json:"v"`
	Kind  string       `json:"kind"`
	ID    string       `json:"id"`
	IDs   []string     `json:"ids"`
	At    timefmt.Time `json:"at"`
	Tool  string       `json:"tool"`
	Call  string       `json:"call"`
	Why   string       `json:"why"`
	Part  int          `json:"part"`
	Parts int          `json:"parts"`
	To    string       `json:"to"`
	Item  ItemRef      `json:"item"`
	Left  fstate.Names `json:"left"`
	// Members: an overlap line's (overlap.go).
	Members []OverlapMember `json:"members"`
	Files   []struct {
		Path   fstate.Name   `json:"path"`
		Before *fstate.State `json:"before"`
		After  *fstate.State `json:"after"`
		Kept   *fstate.State `json:"kept"`
		Put    *fstate.State `json:"put"`
	} `json:"files"`
}

// Timeline is the fold of a changes journal that file revert reads: every
// line that changed files, in journal order, as the moves it made (a
// file's state from, and to), and what a revert must know besides. Like
// Stack it is a pure fold, one line at a time (Apply).
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

// Revert is one file revert of the journal.
type Revert struct {
	ID    string
	At    timefmt.Time
	To    string
	Files []RevertFile
	// Done: its "reverted" line is read; Left the files it did not write.
	Done  bool
	Left  map[string]bool
	Step  *Step
	item  ItemRef
	parts map[int]bool
	n     int
}

// Unfinished reports whether r stopped before all its files were reverted,
// or has not been settled since it stopped.
func (r *Revert) Unfinished() bool { return !r.Done || len(r.Left) > 0 }

// Revert is the complete revert id, or nil.
func (tl *Timeline) Revert(id string) *Revert { return tl.reverts[id] }

// Newest is the newest revert of the stack, or nil.
func (tl *Timeline) Newest() *Revert {
	if len(tl.Stack) == 0 {
		return nil
	}
	return tl.Stack[len(tl.Stack)-1]
}

// Apply folds one line. A line that does not fit (damaged, naming what
// the journal does not hold) is skipped with an error, as Stack.Apply
// skips one.
func (tl *Timeline) Apply(b []byte) error {
	var l tlLine
	if err := json.Unmarshal(b, &l); err != nil || l.V != 1 {
		return errors.New("not a change line")
	}
	if tl.snaps == nil {
		tl.snaps, tl.kept, tl.reverts, tl.assembly = map[string]*Step{}, map[string][]*fstate.State{}, map[string]*Revert{}, map[string]*Revert{}
		tl.Dropped = map[string]bool{}
	}
	switch l.Kind {
	case KindChange, KindRecord:
		return tl.record(&l)
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
			// folds them (Stack.Apply): a damaged line moves nothing.
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
		return tl.overlap(&l)
	case KindRevert:
		return tl.revertPart(&l)
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

func (tl *Timeline) stackIDs() []string {
	ids := make([]string, len(tl.Stack))
	for i, r := range tl.Stack {
		ids[i] = r.ID
	}
	return ids
}

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
func (tl *Timeline) record(l *tlLine) error {
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
		raw := RawLine{V: 1, Kind: l.Kind, ID: l.ID, Tool: l.Tool, Call: l.Call}
		for _, f := range l.Files {
			raw.Files = append(raw.Files, RawFile{Path: f.Path, Before: f.Before, After: f.After})
		}
		if err := CheckChange(&raw); err != nil {
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

// revertPart folds one part of a revert line; the revert takes its place
// once every part is read.
func (tl *Timeline) revertPart(l *tlLine) error {
	if !ValidSnapID(l.ID) || l.Parts < 1 || l.Part < 1 || l.Part > l.Parts || tl.reverts[l.ID] != nil {
		return fmt.Errorf("bad revert line %q part %d of %d", l.ID, l.Part, l.Parts)
	}
	r := tl.assembly[l.ID]
	if r == nil {
		r = &Revert{ID: l.ID, At: l.At, To: l.To, item: l.Item, parts: map[int]bool{}, n: l.Parts}
		tl.assembly[l.ID] = r
	}
	if r.parts[l.Part] || r.n != l.Parts {
		return fmt.Errorf("revert %s: part %d of %d twice", l.ID, l.Part, l.Parts)
	}
	r.parts[l.Part] = true
	for _, f := range l.Files {
		if !fstate.ValidRel(string(f.Path)) || !f.Kept.Valid(fstate.FormBefore) || !f.Put.Valid(fstate.FormAfter) ||
			f.Kept.IsSkipped() || f.Put.IsSkipped() {
			return fmt.Errorf("revert %s: bad file %q", l.ID, string(f.Path))
		}
		r.Files = append(r.Files, RevertFile{Path: string(f.Path), Kept: f.Kept, Put: f.Put})
	}
	if len(r.parts) < r.n {
		return nil
	}
	delete(tl.assembly, l.ID)
	r.Step = &Step{Kind: KindRevert, ID: r.ID, At: r.At, Item: r.item}
	for _, f := range r.Files {
		if !fstate.Same(f.Kept, f.Put) {
			r.Step.Moves = append(r.Step.Moves, Move{Path: f.Path, From: f.Kept, To: f.Put})
		}
	}
	tl.reverts[r.ID] = r
	tl.Steps = append(tl.Steps, r.Step)
	tl.Stack = append(tl.Stack, r)
	return nil
}

// UnrevertMoves is what an unrevert of stack does: each file a revert of
// it moved, from the "put" of the newest that moved it to the "kept" of
// the oldest, in the order the files were first reverted.
func UnrevertMoves(stack []*Revert) []Move {
	var out []Move
	at := map[string]int{}
	for _, r := range stack {
		for _, m := range r.Step.Moves {
			if i, ok := at[m.Path]; ok {
				out[i].From = m.To
				continue
			}
			at[m.Path] = len(out)
			out = append(out, Move{Path: m.Path, From: m.To, To: m.From})
		}
	}
	return out
}

// Pending reports whether the journal holds reverts an unrevert would undo.
func (tl *Timeline) Pending() bool { return len(tl.Stack) > 0 }

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
