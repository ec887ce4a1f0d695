package engine

import (
	"bytes"
	"fmt"
	"sync"

	"cairn/engine/internal/changes"
	"cairn/internal/vfs"
	"cairn/journal"
	"cairn/objects"
)

// snapStack is a session's undo stack: the fold of its changes journal
// (changes.Stack) with the locks and the journal writer of its owner.
type snapStack struct {
	changes.Stack
	// mu is held by a Change while Session.Change runs its function, and by
	// undo, redo and restore, so the file tools of one session take turns.
	mu   sync.Mutex
	objs *objects.Store
	// unread is the lines of the journal the fold skipped, which the
	// stack's answers name.
	unread []UnreadRecord
	// recs is the fold of the journal's record lines (calls other than
	// the file tools: callrec.go), which the undo stack skips.
	recs changes.Records

	wmu sync.Mutex // guards w, owed, cancels, closed and ended (Close must not wait for mu)
	// owed is the changes whose abort lines could not be written, oldest
	// first: the next line written goes after those aborts, in order.
	owed []string
	// cancels is the cancellations of undo and redo steps that changed no
	// file, not written yet: they go before any other line (changes_cancel.go).
	cancels []any
	w       *journal.Writer
	closed  bool
	// ended: the last line this process wrote is a close line
	// (closedSynced, closedLazy), so Close writes none.
	ended bool
	// reverts: the journal foldChanges read may hold a file revert's or
	// unrevert's lines (mayRevert); without them there is none to settle.
	reverts bool
}

// mayRevert reports whether changes line b may be a file revert's or
// unrevert's ("revert", "reverted", "unrevert", "unreverted"): its kind is
// one of those words, or spelled with \u escapes. A superset: a path
// holding the word says yes too.
func mayRevert(b []byte) bool {
	return bytes.Contains(b, []byte("revert")) || bytes.Contains(b, []byte(`\u`))
}

// foldChanges reads a changes journal into a stack. A missing journal is an
// empty stack. A line that is not JSON or does not fit the stack is
// skipped, and named in st.unread.
func foldChanges(fsys vfs.FS, name string, st *snapStack) error {
	var skipped []UnreadRecord
	var at []int // the index among the lines read of each skipped one
	n := 0
	st.reverts = false
	stats, err := journal.Read(fsys, name, func(b []byte) error {
		n++
		st.reverts = st.reverts || mayRevert(b)
		l, err := changes.Decode(b)
		if err == nil {
			err = st.Fold(l)
			st.recs.Fold(l) // a bad record line is fsck's to name
		}
		if err != nil {
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
