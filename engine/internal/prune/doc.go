// Package prune works out what a prune removes and removes it: trash
// entries forgotten long enough ago, orphaned files of sessions that do
// not exist, unreferenced objects, and temp files whose writer is gone.
// Plan lists them by reading only (storage stats adds the same list up,
// so its estimate is what a prune then frees); Run removes each, checked
// again just before it goes. It also keeps the sweep's marker file
// (sweep.go).
//
// An object is removed only when nothing names it (Refs): the lines of its
// sessions' journals, items, drafts and records, a changes journal's
// records less the dropped ones, its workspace-level journals, the walks
// its sessions keep (the stat cache, a pre-tool hook's walk and a pending
// change's marker), and the same of every trash entry kept.
//
// # Words
//
//   - ws: a workspace folder, or a trash entry, relative to the state
//     folder; both hold sessions/, tasks/ and hooks/ the same way.
//   - refs: a set of oids, a map from oid to true. The key "?" says a file
//     or folder could not be read: cannot tell means keep, so the caller
//     removes nothing then.
//   - dropped: a changes journal's records dropped for good, by id (a
//     drop line of the journal, or the workspace's drops.jsonl): dead for
//     undo and file revert alike, so their objects are the store's to
//     free.
//
// # Locks
//
// Nothing here holds state. Run takes a session's lock for a moment
// before it purges its trash entry (one a restore holds stays, and so do
// the objects of its workspace), and an orphaned lock file's before it
// removes it; Plan takes an orphaned lock file's to check it is free. The
// references are read after the walk of the store, so an object stored
// meanwhile and named by a line written before the reading is kept; what
// is written after it is younger than the grace a prune leaves.
package prune
