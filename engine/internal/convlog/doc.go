// Package convlog keeps what a session's conversation log needs to come
// back from a failed write: the lines of one journal (the items journal,
// the trail) that Degrade mode holds in memory until they are durable, and
// the cut-back-and-reopen of a journal whose writer broke or whose sync
// failed.
//
// Words:
//   - synced: the journal's size at its last good sync; what lies past it
//     may be lost by a crash even though it reads back.
//   - written: lines appended since that sync, kept so that they can be
//     written again when a sync fails (a failed fsync is never taken as
//     done).
//   - waiting: lines not written at all, because the session was
//     unrecorded when they came; they are written, in order, once writes
//     work again.
//
// The conversation log itself (the folded state, the head, the items
// journal and the trail, the record and Degrade mode) is the engine's
// convLog (engine/conv.go), which holds one Kept per journal.
//
// Locks: none here. A Kept belongs to one journal writer of one session and
// is guarded by the lock that guards that writer (Session.mu).
//
// Formats: none of its own; the lines are the journal's (package journal
// frames them, the engine draws them).
package convlog
