package changes

import (
	"fmt"

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

// revertPart folds one part of a revert line; the revert takes its place
// once every part is read.
func (tl *Timeline) revertPart(l *Line) error {
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

func (tl *Timeline) stackIDs() []string {
	ids := make([]string, len(tl.Stack))
	for i, r := range tl.Stack {
		ids[i] = r.ID
	}
	return ids
}
