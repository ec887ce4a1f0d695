package changes

import (
	"errors"
	"fmt"
	"slices"

	"cairn/engine/internal/fstate"
)

// Stack is an undo stack, folded from a changes journal: the live
// snapshots, oldest first, the applied ones a prefix of the list. It is a
// pure fold: Fold takes one decoded line at a time and touches nothing
// else. Its fields are its own: an owner that wrote lines without folding
// them tells the stack what they did (Committed, Undid, Redid, Settled,
// PopPending), so the rules below hold in this package alone.
//
// The rules: pending is set only while its change is the newest applied
// snapshot and no undo, redo or abort line followed its line (HasPending);
// prev only beside pending; unsettled oldest first, aborted changes left
// out; restoring only while nothing but discard, drop and evidence lines
// followed its line.
type Stack struct {
	list []*Entry
	seq  int // the highest seq of a change line
	// pending is the newest change while no undo, redo or abort line
	// follows it: a file tool writes its line before it changes its file,
	// and may have stopped in between. held is the undone branch its line
	// ended, which an abort of it puts back.
	pending *Entry
	held    []*Entry
	// prev is the change before pending when only lines that do not wait
	// for file changes (discard, drop, start, off) came between their
	// lines; prevHeld is the undone branch prev's line ended. A file tool
	// writes its line while the folder sync of the tool before it may
	// still run, and waits for that sync only before it changes its own
	// file (engine: fileSyncs). So a crash may leave both unmade. An abort
	// of pending makes prev pending again (PopPending).
	prev     *Entry
	prevHeld []*Entry
	// unsettled is the change lines since the last line that waited for
	// every file change before it to be durable (a close line, an undo, a
	// call's line: settle), oldest first, aborted ones left out. A file
	// tool whose new content is in its line (Entry.Redoable) leaves its
	// folder's sync to the end of the turn, so a crash may lose its file
	// change while later lines are durable; the next owner makes it again
	// from its line (RedoPlan). Drop and discard lines do not touch it: a
	// change dropped from the stack is made all the same.
	unsettled []*Entry
	// restoring is the snapshot of the newest undo, restore or redo line
	// while nothing but discard, drop and evidence lines follows it: its
	// files may not all have been put back when its owner stopped.
	restoring *Entry
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
	for _, e := range st.list {
		if e.Applied {
			n++
		}
	}
	return n
}

// Find returns the index of snapshot id, or -1.
func (st *Stack) Find(id string) int {
	for i, e := range st.list {
		if e.Rec.ID == id {
			return i
		}
	}
	return -1
}

// Entries is the live snapshots, oldest first. The slice is the stack's:
// read it, do not change it.
func (st *Stack) Entries() []*Entry { return st.list }

// Seq is the highest seq of a change line folded or committed.
func (st *Stack) Seq() int { return st.seq }

// Pending is the pending change (HasPending), or nil.
func (st *Stack) Pending() *Entry {
	if !st.HasPending() {
		return nil
	}
	return st.pending
}

// Newest is the newest change the fold read: the pending one, else the
// newest live snapshot; nil when there is none.
func (st *Stack) Newest() *Entry {
	if st.pending != nil {
		return st.pending
	}
	if n := len(st.list); n > 0 {
		return st.list[n-1]
	}
	return nil
}

// Prev is the unsettled change before the pending one, which a crash may
// have left unmade with it (see Stack), or nil.
func (st *Stack) Prev() *Entry { return st.prev }

// Restoring is the snapshot of an undo, restore or redo whose files may
// not all be back (see Stack), or nil.
func (st *Stack) Restoring() *Entry { return st.restoring }

// Unsettled is the changes a crash may have lost while later lines are
// durable (see Stack), oldest first.
func (st *Stack) Unsettled() []*Entry { return st.unsettled }

// Committed folds change rec, made, whose lines (NewChange's, or
// AfterChange's after it) are written: the stack is live, the list its
// owner worked out (AfterChange), and nothing is pending, as after the
// fold of a line that waited for the change.
func (st *Stack) Committed(rec ChangeLine, live []*Entry) {
	st.list, st.seq = live, max(st.seq, rec.Seq)
	st.pending, st.held, st.prev, st.prevHeld, st.restoring = nil, nil, nil, nil, nil
}

// Undid folds the undo (or restore step) of e, whose line keeping kept is
// written: e is undone, and redo puts back what it kept.
func (st *Stack) Undid(e *Entry, kept []*fstate.State) {
	e.Applied, e.Kept = false, kept
}

// Redid folds the redo of e, whose line is written.
func (st *Stack) Redid(e *Entry) { e.Applied = true }

// Settled folds a line that waited for every file change before it to be
// durable and is none of the stack's own (a file revert's or unrevert's):
// nothing is pending, being restored or unsettled.
func (st *Stack) Settled() { st.settle() }

// Fold folds one line. A line that does not fit the stack (a hostile or
// damaged line, an undo of a snapshot that is not the newest applied) is
// skipped with an error; fsck names it. Lines of the other folds' kinds
// (records.go, timeline.go) change nothing but what they settle.
func (st *Stack) Fold(l *Line) error {
	var held []*Entry
	var prev *Entry
	if l.Kind == KindChange {
		held = slices.Clone(st.list[st.Cursor():])
		if st.HasPending() {
			prev = st.pending
		}
	}
	switch l.Kind {
	case KindCall, KindRecord, KindUnrecorded:
		// A call's lines wait for the file changes before them to be
		// durable (engine: writeChanges, synced), as an undo's do: no change
		// before them is pending, nor judged with a later one (Prev).
		st.pending, st.held, st.prev, st.prevHeld, st.unsettled = nil, nil, nil, nil, nil
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
			st.prev, st.prevHeld = prev, st.held
		} else {
			st.prev, st.prevHeld = nil, nil
		}
		st.pending, st.held, st.restoring = st.list[len(st.list)-1], held, nil
		st.unsettled = append(st.unsettled, st.pending)
	case KindUndo, KindRestore, KindRedo:
		// Each waits for the file changes before it to be durable
		// (engine: fileSyncs), and may itself be stopped before its files are.
		st.settle()
		st.restoring = st.list[st.Find(l.ID)]
	case KindAbort:
		// An abort has put back what it held (fold); the change before
		// it, when its line was unsettled too, is pending again.
		st.dropUnsettled(l.ID)
		st.pending, st.held, st.prev, st.prevHeld, st.restoring = st.prev, st.prevHeld, nil, nil, nil
	case KindClose, KindRevert, KindUnrevert:
		// A close line says every file change before it was made, and so
		// does a file revert's line, which waits for them (engine:
		// fileSyncs). The undo stack folds nothing else of file revert's
		// lines (timeline.go).
		st.settle()
	case KindDiscard:
		undone := func(e *Entry) bool { return slices.Contains(l.IDs, e.Rec.ID) }
		st.held = slices.DeleteFunc(st.held, undone)
		st.prevHeld = slices.DeleteFunc(st.prevHeld, undone)
	}
	return nil
}

// settle says no change is pending: a line followed that waited for every
// file change before it.
func (st *Stack) settle() {
	st.pending, st.held, st.prev, st.prevHeld, st.restoring, st.unsettled = nil, nil, nil, nil, nil, nil
}

// dropUnsettled takes change id out of Unsettled: it was cancelled.
func (st *Stack) dropUnsettled(id string) {
	st.unsettled = slices.DeleteFunc(st.unsettled, func(e *Entry) bool { return e.Rec.ID == id })
}

// PopPending takes the pending change out of the stack, as its abort line
// does: the undone branch it ended is put back, and the change before it,
// when its line was unsettled too (Prev), is pending again.
func (st *Stack) PopPending() {
	if !st.HasPending() {
		return
	}
	st.dropUnsettled(st.pending.Rec.ID)
	st.list = append(st.list[:len(st.list)-1], st.held...)
	st.pending, st.held, st.prev, st.prevHeld = st.prev, st.prevHeld, nil, nil
}

func (st *Stack) fold(l *Line) error {
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
		st.list = append(st.list, e)
		st.seq = max(st.seq, l.Seq)
	case KindUndo, KindRestore:
		n := st.Cursor()
		if n == 0 || st.list[n-1].Rec.ID != l.ID {
			return fmt.Errorf("undo of %s, which is not the newest applied snapshot", l.ID)
		}
		e := st.list[n-1]
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
		if n == len(st.list) || st.list[n].Rec.ID != l.ID {
			return fmt.Errorf("redo of %s, which is not the newest undone snapshot", l.ID)
		}
		st.list[n].Applied = true
	case KindAbort:
		n := len(st.list)
		if st.Find(l.ID) < 0 {
			return errNoop // a change whose line never reached the journal
		}
		if n == 0 || st.pending != st.list[n-1] || st.pending.Rec.ID != l.ID {
			return fmt.Errorf("abort of %s, which is not the newest change", l.ID)
		}
		st.list = append(st.list[:n-1], st.held...)
	case KindRecord:
		// Records of other calls are not undo snapshots (records.go);
		// their seq numbers follow the change lines' all the same.
		st.seq = max(st.seq, l.Seq)
		return errNoop
	case KindDiscard, KindDrop:
		for _, id := range l.IDs {
			if i := st.Find(id); i >= 0 && (l.Kind == KindDrop || !st.list[i].Applied) {
				st.list = append(st.list[:i], st.list[i+1:]...)
			}
		}
	}
	return nil
}

// Undone is the ids of the undone snapshots.
func (st *Stack) Undone() []string {
	var ids []string
	for _, e := range st.list {
		if !e.Applied {
			ids = append(ids, e.Rec.ID)
		}
	}
	return ids
}

// DiscardUndone drops the undone snapshots: a new change ends their branch.
func (st *Stack) DiscardUndone() {
	st.list = st.list[:st.Cursor()]
}
