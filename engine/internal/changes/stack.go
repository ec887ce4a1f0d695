package changes

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"cairn/engine/internal/fstate"
)

// Stack is an undo stack, folded from a changes journal: the live
// snapshots, oldest first, the applied ones a prefix of the list. It is a
// pure fold: Apply takes one line at a time and touches nothing else.
type Stack struct {
	List []*Entry
	Seq  int // the highest seq of a change line
	// Pending is the newest change while no undo, redo or abort line
	// follows it: a file tool writes its line before it changes its file,
	// and may have stopped in between. Held is the undone branch its line
	// ended, which an abort of it puts back.
	Pending *Entry
	Held    []*Entry
	// Prev is the change before Pending when its line followed Prev's with
	// nothing but lines written without waiting for file changes (discard,
	// drop, start, off) between, and PrevHeld the undone
	// branch Prev's line ended: a file tool writes its line while the
	// folder sync of the tool before it is still under way, and waits for
	// that sync only before it changes its own file (engine: fileSyncs), so
	// a crash may leave both unmade. An abort of Pending makes Prev
	// pending again (PopPending).
	Prev     *Entry
	PrevHeld []*Entry
	// Unsettled is the change lines since the last line that waited for
	// every file change before it to be durable (a close line, an undo,
	// a call's line; settle), oldest first, aborted ones left out: a file
	// tool whose new content is in its line (Entry.Redoable) leaves its
	// folder's sync to the end of the turn (engine: fileSyncs), so a crash
	// may lose its file change while later lines are durable. The next
	// owner makes such a change again from its line (RedoPlan). The drop
	// and discard lines of the undo stack do not touch it: a change
	// dropped from the stack is made all the same.
	Unsettled []*Entry
	// Restoring is the snapshot of the newest undo, restore or redo line
	// while nothing but discard, drop and evidence lines follows it: its
	// files may not all have been put back when its owner stopped.
	Restoring *Entry
}

// errNoop is a line that changes nothing and leaves the stack as it was.
var errNoop = errors.New("nothing to fold")

// Entry is one live snapshot.
type Entry struct {
	Rec     ChangeLine
	Applied bool
	Kept    []*fstate.State // what the latest undo kept for redo, per file
}

// Bytes is the stored content a snapshot refers to, in objects or inline
// (a hash-only after state stores nothing).
func (e *Entry) Bytes() int64 {
	var n int64
	add := func(f *fstate.State) {
		if f.Stored() {
			n += f.Size
		}
	}
	for i, f := range e.Rec.Files {
		add(f.Before)
		if f.After != nil && f.After.OID != "" { // an inline after is kept for redo, not a snapshot's content
			add(f.After)
		}
		if i < len(e.Kept) {
			add(e.Kept[i])
		}
	}
	return n
}

// Cursor is how many snapshots are applied.
func (st *Stack) Cursor() int {
	n := 0
	for _, e := range st.List {
		if e.Applied {
			n++
		}
	}
	return n
}

// Find returns the index of snapshot id, or -1.
func (st *Stack) Find(id string) int {
	for i, e := range st.List {
		if e.Rec.ID == id {
			return i
		}
	}
	return -1
}

// Apply folds one line. A line that does not fit the stack (a hostile or
// damaged line, an undo of a snapshot that is not the newest applied) is
// skipped with an error; fsck names it.
func (st *Stack) Apply(b []byte) error {
	_, err := st.ApplyKind(b)
	return err
}

// ApplyKind is Apply, and also the line's kind as the fold read it ("" for
// a line that is not JSON of version 1): a caller folding the line
// elsewhere too can skip what that fold ignores (RecordsFold).
func (st *Stack) ApplyKind(b []byte) (string, error) {
	var l RawLine
	if err := json.Unmarshal(b, &l); err != nil || l.V != 1 {
		return "", errors.New("not a change line")
	}
	return l.Kind, st.applyLine(&l)
}

func (st *Stack) applyLine(l *RawLine) error {
	var held []*Entry
	var prev *Entry
	if l.Kind == KindChange {
		held = slices.Clone(st.List[st.Cursor():])
		if st.HasPending() {
			prev = st.Pending
		}
	}
	switch l.Kind {
	case KindCall, KindRecord, KindUnrecorded:
		// A call's lines wait for the file changes before them to be
		// durable (engine: appendChanges), as an undo's do: no change
		// before them is pending, nor judged with a later one (Prev).
		st.Pending, st.Held, st.Prev, st.PrevHeld, st.Unsettled = nil, nil, nil, nil, nil
	}
	err := st.fold(l)
	if errors.Is(err, errNoop) {
		return nil
	}
	if err != nil {
		return err
	}
	switch l.Kind {
	case KindChange:
		if prev != nil {
			st.Prev, st.PrevHeld = prev, st.Held
		} else {
			st.Prev, st.PrevHeld = nil, nil
		}
		st.Pending, st.Held, st.Restoring = st.List[len(st.List)-1], held, nil
		st.Unsettled = append(st.Unsettled, st.Pending)
	case KindUndo, KindRestore, KindRedo:
		// Each waits for the file changes before it to be durable
		// (engine: fileSyncs), and may itself be stopped before its files are.
		st.settle()
		st.Restoring = st.List[st.Find(l.ID)]
	case KindAbort:
		// An abort has put back what it held (fold); the change before
		// it, when its line was unsettled too, is pending again.
		st.dropUnsettled(l.ID)
		st.Pending, st.Held, st.Prev, st.PrevHeld, st.Restoring = st.Prev, st.PrevHeld, nil, nil, nil
	case KindClose, KindRevert, KindUnrevert:
		// A close line says every file change before it was made, and so
		// does a file revert's line, which waits for them (engine:
		// fileSyncs). The undo stack folds nothing else of file revert's
		// lines (timeline.go).
		st.settle()
	case KindDiscard:
		undone := func(e *Entry) bool { return slices.Contains(l.IDs, e.Rec.ID) }
		st.Held = slices.DeleteFunc(st.Held, undone)
		st.PrevHeld = slices.DeleteFunc(st.PrevHeld, undone)
	}
	return nil
}

// settle says no change is pending: a line followed that waited for every
// file change before it.
func (st *Stack) settle() {
	st.Pending, st.Held, st.Prev, st.PrevHeld, st.Restoring, st.Unsettled = nil, nil, nil, nil, nil, nil
}

// dropUnsettled takes change id out of Unsettled: it was cancelled.
func (st *Stack) dropUnsettled(id string) {
	st.Unsettled = slices.DeleteFunc(st.Unsettled, func(e *Entry) bool { return e.Rec.ID == id })
}

// PopPending takes the pending change out of the stack, as its abort line
// does: the undone branch it ended is put back, and the change before it,
// when its line was unsettled too (Prev), is pending again.
func (st *Stack) PopPending() {
	if !st.HasPending() {
		return
	}
	st.dropUnsettled(st.Pending.Rec.ID)
	st.List = append(st.List[:len(st.List)-1], st.Held...)
	st.Pending, st.Held, st.Prev, st.PrevHeld = st.Prev, st.PrevHeld, nil, nil
}

func (st *Stack) fold(l *RawLine) error {
	switch l.Kind {
	case KindChange:
		if err := CheckChange(l); err != nil {
			return err
		}
		if st.Find(l.ID) >= 0 {
			return fmt.Errorf("snapshot %s twice", l.ID)
		}
		st.DiscardUndone() // a new change ends the undone branch
		e := &Entry{Applied: true, Rec: ChangeLine{V: 1, Kind: KindChange, ID: l.ID, Seq: l.Seq, At: l.At,
			Tool: l.Tool, Call: l.Call, Item: l.Item, Scope: l.Scope}}
		for _, f := range l.Files {
			e.Rec.Files = append(e.Rec.Files, FileChange{Path: string(f.Path), Before: f.Before, After: f.After})
		}
		st.List = append(st.List, e)
		st.Seq = max(st.Seq, l.Seq)
	case KindUndo, KindRestore:
		n := st.Cursor()
		if n == 0 || st.List[n-1].Rec.ID != l.ID {
			return fmt.Errorf("undo of %s, which is not the newest applied snapshot", l.ID)
		}
		e := st.List[n-1]
		if len(l.Files) != len(e.Rec.Files) {
			return fmt.Errorf("undo of %s names other files", l.ID)
		}
		kept := make([]*fstate.State, len(l.Files))
		for i, f := range l.Files {
			if string(f.Path) != e.Rec.Files[i].Path || !f.Kept.Valid(fstate.FormStored) {
				return fmt.Errorf("undo of %s names other files", l.ID)
			}
			kept[i] = f.Kept
		}
		e.Applied, e.Kept = false, kept
	case KindRedo:
		n := st.Cursor()
		if n == len(st.List) || st.List[n].Rec.ID != l.ID {
			return fmt.Errorf("redo of %s, which is not the newest undone snapshot", l.ID)
		}
		st.List[n].Applied = true
	case KindAbort:
		n := len(st.List)
		if st.Find(l.ID) < 0 {
			return errNoop // a change whose line never reached the journal
		}
		if n == 0 || st.Pending != st.List[n-1] || st.Pending.Rec.ID != l.ID {
			return fmt.Errorf("abort of %s, which is not the newest change", l.ID)
		}
		st.List = append(st.List[:n-1], st.Held...)
	case KindRecord:
		// Records of other calls are not undo snapshots (records.go);
		// their seq numbers follow the change lines' all the same.
		st.Seq = max(st.Seq, l.Seq)
		return errNoop
	case KindDiscard, KindDrop:
		for _, id := range l.IDs {
			if i := st.Find(id); i >= 0 && (l.Kind == KindDrop || !st.List[i].Applied) {
				st.List = append(st.List[:i], st.List[i+1:]...)
			}
		}
	}
	return nil
}

// Undone is the ids of the undone snapshots.
func (st *Stack) Undone() []string {
	var ids []string
	for _, e := range st.List {
		if !e.Applied {
			ids = append(ids, e.Rec.ID)
		}
	}
	return ids
}

// DiscardUndone drops the undone snapshots: a new change ends their branch.
func (st *Stack) DiscardUndone() {
	st.List = st.List[:st.Cursor()]
}
