// Package snapshot runs undo, redo and restore-to over a session's undo
// stack (changes.Stack), and holds the undo stack's answers (seed 001's
// JSON shapes) that the engine names.
//
// # Words
//
//   - Run: one undo, redo or restore-to at work; Restore takes its steps,
//     newest snapshot first.
//   - A step: one snapshot undone or redone. Its line goes first (an undo
//     line keeps each file's current content, for redo), then a
//     changes.Plan of the files to put back, run by the session's
//     changes.Applier; a step that put back no file is cancelled with the
//     opposite line.
//   - Host: what a run needs of its session (the engine's sessionHost):
//     absolute paths for answers, the clock, a synced write to the
//     changes journal, a refold of the stack after a failed write, and a
//     cancellation that may be owed.
//
// # Locks
//
// It holds none: the caller holds the session's busy lock (shared) and the
// undo stack's lock for the whole run, as the engine's
// snapshot_restore.go does.
//
// # What undo, redo and restore-to promise
//
// Undo, redo and restore-to. An undo keeps the files' current content as
// objects and writes its undo line (synced) before it touches a file, so
// whatever happens after, redo can put exactly that content back. Each file
// is replaced atomically or removed; the folders are synced before the
// answer. A file an undo cannot keep or restore (its pre-image was skipped
// or its object is missing or damaged, its current content is too large or
// unreadable, or it cannot be written) is left as it is and named in
// "skipped", with why in "not_restored".
//
// The run itself is package snapshot's (snapshot.Run); this file holds
// the locks, picks the snapshots and writes the trail.
//
// An undo or redo that can put back no file is refused (a *RestoreError)
// and changes nothing: it writes no line, or, when every file failed once
// its line was written, cancels it with the opposite line. A restore-to
// passes over a snapshot it cannot put back (that is how the stack gets
// past one for good), unless it can put back no file at all.
package snapshot
