// Package changes is the changes journal below engine: its lines and
// their validation (format.go draws every line, part of the format), the
// pure fold of a journal into an undo stack (Stack.Fold, one line at a
// time, decoded once by Decode), and what the stack does to the workspace's files: a Plan, the
// files to put back and the state each must get, and the one Applier that
// runs a plan. An undo, a redo, each step of a restore-to and the recovery
// of one that its owner did not finish all make a plan, and the same
// Applier runs it, so putting files back is written once (file revert
// makes its plan too: RevertPlan).
//
// The lines a new change writes (NewChange: the discard of the undone
// branch, the change line, the drop of the oldest snapshots over the
// Limits) are made here too. The journal's one writer is here too
// (Writer, writer.go: one write with a named Durability, an owed abort
// line, owed cancellations in cancel.go, the close line), with the file
// tools' folder syncs it waits for (Syncs, syncs.go) and the fold of a
// whole journal (FoldJournal, unread.go). Engine keeps what needs a
// session: the stack's lock, and the steps that write each line before
// they run its plan.
//
// A file's state on a line is drawn in format.go; its keys are "oid",
// "sha256", "size", "mode" (file, exec or link), "perm" (four octal digits),
// "data" (inline content, base64) and "skipped".
//
// # Locks
//
// Writer and Syncs each guard their fields with their own mutex, a leaf:
// held only while lines are appended and synced, or a sync's state read.
// Stack, Records and the plans hold none; the engine's snapStack.mu
// guards them.
//
// # Rules
//
// Apart from Writer and Syncs it holds no locks, and it knows no session: the caller serializes, and
// writes the journal line that names a plan's contents before it runs the
// plan (data before the line that names it, the line before the files).
// It imports engine/internal/fstate, internal/timefmt, internal/vfs and
// objects; engine imports it.
package changes
