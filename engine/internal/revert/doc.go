// Package revert does the work of a file revert and an unrevert once the
// engine holds the session's locks: the boundary an item makes (After),
// the refusals (Refusal, BudgetDrops, Foreign), the writes (Run.Revert,
// Run.Unrevert), the settling on open of one its owner did not finish
// (Unsettled, Run.Settle), and the answers (FileRevert, the contents on
// each side of a change for cairn diff and a preview).
//
// # Words
//
//   - A boundary (changes.Boundary): which lines of the changes journal
//     lie after the item a revert goes back to.
//   - Foreign changes: what the other sessions of the workspace changed,
//     for the interleaving check (changes.Timeline.Targets).
//   - Host: what a Run needs of its session (the engine's sessionHost):
//     absolute paths for answers, the clock, the newest item, a synced
//     write to the changes journal, and the undo stack brought up to a
//     line just written.
//
// # Locks
//
// It holds none. A Run is used with the session's busy lock (shared), the
// undo stack's lock and the workspace call lock held alone, as the
// engine's revert_files.go takes them. The line formats are package
// changes'.
//
// # The whole of a file revert
//
// File revert puts back the files this session's records changed after a
// boundary, newest first, from the records in its changes journal (file
// tools' change lines, recorded calls' record lines; a fork holds its
// parent's). Package changes makes the plan (Timeline, Targets, Check,
// RevertPlan) and its Applier runs it; this file holds the locks, the
// refusals and the journal lines. Calls that ran at the same time are one
// step, their unit's overlap line (engine/internal/overlap).
//
// The boundary is a conversation revert's: a user prompt reverts its own
// turn's changes too, any other item keeps the changes made up to it
// (revertAfter). A compaction item counts from its original, the last item
// of the stretch it replaced. Only files a record names are touched.
//
// Before anything is written every file is checked; one conflict
// (changed, interleaved, unrecorded) refuses the whole revert, the
// conversation half included, with a *RevertConflictError. A revert is
// also refused, naming why, while a call of this session runs or another
// live session of the workspace runs one (the workspace call lock,
// calls_lock.go), while an earlier revert is unfinished, when a record it
// needs was dropped by the store budget, and when the boundary lies before
// the session's records start (or recording is off, then or now).
//
// The revert line (with what each file held) is synced before a file
// changes; each file is replaced atomically with the permission bits its
// record holds; the "reverted" line follows once the files are durable.
// A revert stopped in between is settled by the next owner
// (settleReverts): adopted with a notice when every file was put, else
// left pending and unfinished (unrevert puts back what it changed; new
// work keeps the files as they are).
package revert
