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
//   - Host: what a run needs of its session (the engine's restoreHost):
//     absolute paths for answers, the clock, a synced write to the
//     changes journal, a refold of the stack after a failed write, and a
//     cancellation that may be owed.
//
// # Locks
//
// It holds none: the caller holds the session's busy lock (shared) and the
// undo stack's lock for the whole run, as the engine's
// snapshot_restore.go does.
package snapshot
