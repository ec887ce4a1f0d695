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
//   - Host: what a Run needs of its session (the engine's revertHost):
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
package revert
