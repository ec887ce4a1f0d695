// Package fsck holds the checks of `cairn storage fsck` that read plain
// files: a workspace's object store verified against the journal lines
// naming it, the objects a line names, and what a dot file is. The engine
// walks the state folder, folds the journals, and calls these with two
// reporters.
//
// # Words
//
//   - problem: something wrong, reported with bad; a person acts on it.
//   - note: something a crash or a running writer leaves, which cairn
//     settles by itself (a torn tail, a temp file, a plan); reported with
//     note.
//   - where: a path relative to the state folder, with ":N" for the N-th
//     line of a journal.
//   - named: a map from oid to every journal line ("path:line") naming it.
//
// # Locks
//
// It holds no state and takes no lock: fsck reads while others write, and
// changes nothing.
package fsck
