package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"cairn/engine/internal/fstate"
	"cairn/internal/vfs"
	"cairn/journal"
	"cairn/objects"
)

// snapStack is a session's undo stack, folded from its changes journal:
// the live snapshots, oldest first, the applied ones a prefix of the list.
type snapStack struct {
	// mu is held by a Change while Session.Change runs its function, and by
	// undo, redo and restore, so the file tools of one session take turns.
	mu   sync.Mutex
	list []*snapEntry
	seq  int // the highest seq of a change line
	// pending is the newest change while no undo, redo or abort line
	// follows it: a file tool writes its line before it changes its file,
	// and may have stopped in between. held is the undone branch its line
	// ended, which an abort of it puts back.
	pending *snapEntry
	held    []*snapEntry
	// restoring is the snapshot of the newest undo, restore or redo line
	// while nothing but discard, drop and evidence lines follows it: its
	// files may not all have been put back when its owner stopped.
	restoring *snapEntry
	objs      *objects.Store
	// unread is the lines of the journal the fold skipped, which the
	// stack's answers name.
	unread []UnreadRecord

	wmu sync.Mutex // guards w, owed and closed (Close must not wait for mu)
	// owed is a change whose abort line could not be written: the next
	// line written goes after that abort.
	owed   string
	w      *journal.Writer
	closed bool
}

// errNoop is a line that changes nothing and leaves the stack as it was.
var errNoop = errors.New("nothing to fold")

// snapEntry is one live snapshot.
type snapEntry struct {
	rec     changeRecord
	applied bool
	kept    []*fstate.State // what the latest undo kept for redo, per file
}

// bytes is the stored content a snapshot refers to, in objects or inline
// (a hash-only after state stores nothing).
func (e *snapEntry) bytes() int64 {
	var n int64
	add := func(f *fstate.State) {
		if f.Stored() {
			n += f.Size
		}
	}
	for i, f := range e.rec.Files {
		add(f.Before)
		add(f.After)
		if i < len(e.kept) {
			add(e.kept[i])
		}
	}
	return n
}

// cursor is how many snapshots are applied.
func (st *snapStack) cursor() int {
	n := 0
	for _, e := range st.list {
		if e.applied {
			n++
		}
	}
	return n
}

// find returns the index of snapshot id, or -1.
func (st *snapStack) find(id string) int {
	for i, e := range st.list {
		if e.rec.ID == id {
			return i
		}
	}
	return -1
}

// apply folds one line. A line that does not fit the stack (a hostile or
// damaged line, an undo of a snapshot that is not the newest applied) is
// skipped with an error; fsck names it.
func (st *snapStack) apply(b []byte) error {
	var l rawChangeLine
	if err := json.Unmarshal(b, &l); err != nil || l.V != 1 {
		return fmt.Errorf("not a change line")
	}
	var held []*snapEntry
	if l.Kind == kindChange {
		held = slices.Clone(st.list[st.cursor():])
	}
	err := st.fold(&l)
	if err == errNoop {
		return nil
	}
	if err != nil {
		return err
	}
	switch l.Kind {
	case kindChange:
		st.pending, st.held, st.restoring = st.list[len(st.list)-1], held, nil
	case kindUndo, kindRestore, kindRedo:
		// Each waits for the file changes before it to be durable
		// (fileSyncs), and may itself be stopped before its files are.
		st.pending, st.held, st.restoring = nil, nil, st.list[st.find(l.ID)]
	case kindAbort, kindClose:
		// An abort has put back what it held; a close line says every
		// file change before it was made.
		st.pending, st.held, st.restoring = nil, nil, nil
	case kindDiscard:
		st.held = slices.DeleteFunc(st.held, func(e *snapEntry) bool { return slices.Contains(l.IDs, e.rec.ID) })
	}
	return nil
}

func (st *snapStack) fold(l *rawChangeLine) error {
	switch l.Kind {
	case kindChange:
		if err := checkChange(l); err != nil {
			return err
		}
		if st.find(l.ID) >= 0 {
			return fmt.Errorf("snapshot %s twice", l.ID)
		}
		st.discardUndone() // a new change ends the undone branch
		e := &snapEntry{applied: true, rec: changeRecord{V: 1, Kind: kindChange, ID: l.ID, Seq: l.Seq, At: l.At,
			Tool: l.Tool, Call: l.Call, Scope: l.Scope}}
		for _, f := range l.Files {
			e.rec.Files = append(e.rec.Files, changeFile{Path: f.Path, Before: f.Before, After: f.After})
		}
		st.list = append(st.list, e)
		st.seq = max(st.seq, l.Seq)
	case kindUndo, kindRestore:
		n := st.cursor()
		if n == 0 || st.list[n-1].rec.ID != l.ID {
			return fmt.Errorf("undo of %s, which is not the newest applied snapshot", l.ID)
		}
		e := st.list[n-1]
		if len(l.Files) != len(e.rec.Files) {
			return fmt.Errorf("undo of %s names other files", l.ID)
		}
		kept := make([]*fstate.State, len(l.Files))
		for i, f := range l.Files {
			if f.Path != e.rec.Files[i].Path || !f.Kept.Valid(fstate.FormStored) {
				return fmt.Errorf("undo of %s names other files", l.ID)
			}
			kept[i] = f.Kept
		}
		e.applied, e.kept = false, kept
	case kindRedo:
		n := st.cursor()
		if n == len(st.list) || st.list[n].rec.ID != l.ID {
			return fmt.Errorf("redo of %s, which is not the newest undone snapshot", l.ID)
		}
		st.list[n].applied = true
	case kindAbort:
		n := len(st.list)
		if st.find(l.ID) < 0 {
			return errNoop // a change whose line never reached the journal
		}
		if n == 0 || st.pending != st.list[n-1] || st.pending.rec.ID != l.ID {
			return fmt.Errorf("abort of %s, which is not the newest change", l.ID)
		}
		st.list = append(st.list[:n-1], st.held...)
	case kindDiscard, kindDrop:
		for _, id := range l.IDs {
			if i := st.find(id); i >= 0 && (l.Kind == kindDrop || !st.list[i].applied) {
				st.list = append(st.list[:i], st.list[i+1:]...)
			}
		}
	}
	return nil
}

// undone is the ids of the undone snapshots.
func (st *snapStack) undone() []string {
	var ids []string
	for _, e := range st.list {
		if !e.applied {
			ids = append(ids, e.rec.ID)
		}
	}
	return ids
}

func (st *snapStack) discardUndone() {
	st.list = st.list[:st.cursor()]
}

// foldChanges reads a changes journal into a stack. A missing journal is an
// empty stack. A line that is not JSON or does not fit the stack is
// skipped, and named in st.unread.
func foldChanges(fsys vfs.FS, name string, st *snapStack) error {
	var skipped []UnreadRecord
	var at []int // the index among the lines read of each skipped one
	n := 0
	stats, err := journal.Read(fsys, name, func(b []byte) error {
		n++
		if err := st.apply(b); err != nil {
			skipped = append(skipped, UnreadRecord{Error: err.Error()})
			at = append(at, n)
		}
		return nil
	})
	if err != nil && !vfs.IsNotExist(err) {
		return fmt.Errorf("engine: read %s: %w", name, err)
	}
	st.unread = unreadLines(name, stats.Bad, skipped, at)
	return nil
}
