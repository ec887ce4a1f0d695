package engine

import (
	"sync"

	"cairn/engine/internal/changes"
	"cairn/journal"
	"cairn/objects"
)

// The changes log of a session: everything that reads and writes its
// changes journal (<id>.changes.jsonl) and puts its files back. Its parts,
// each in its own file:
//
//   - the undo stack, snapStack below: the fold of the journal
//     (changes.Stack for file tools' lines, changes.Records for recorded
//     calls' lines; changes_fold.go folds, changes_unread.go names what it
//     skipped);
//   - the writer, snapStack's w and what goes with it: one write with a
//     named durability mode (changes_writer.go), owed aborts and the
//     cancellations of undo and redo steps that changed no file
//     (changes_cancel.go), the close line;
//   - the owed folder syncs of file tools' changes, Session.files
//     (fileSyncs, filesyncs.go), which the writer waits for;
//   - the Applier, Session.apply (changes.Applier), the one way files are
//     put back: undo, redo, restore-to, file revert, unrevert, recovery
//     (changes_recover.go, patch_recover.go) and a patch stopped half way.
//
// Locks (engine/doc.go, # Locks, gives their order):
//
//   - snapStack.mu guards the fold (the embedded changes.Stack, recs,
//     unread, reverts, objs) and Session.noted: every file tool, change,
//     recorded call, undo, redo, restore-to, revert and the fold on Open
//     holds it while it reads or changes them, so a session's file changes
//     take turns. Session.apply runs under it.
//   - snapStack.wmu guards the writer: w, owed, cancels, closed and ended.
//     It is a leaf, held only while lines are appended and synced, so
//     Close takes it without mu.
//   - fileSyncs.mu guards the folder syncs' own state, a leaf too.

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
