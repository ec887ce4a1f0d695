// Package migrate carries out a session's move to another directory's
// workspace folder (cairn migrate-sessions FROM TO): the engine finds the
// sessions and takes their source locks, and Move runs the steps here in
// order (Sessions runs a whole request: every lock first, then each
// Move, then the usage ledger); Recover finishes or undoes at open what a
// crash interrupted.
// UsageOf works out the usage ledger's reattribution (UsageLine).
//
// Change records cannot cross: the user's files stay where they were, so
// the moved session's changes journal starts again with a start line, and
// its undo stack and file revert reach back only to the move.
//
// # Words
//
//   - plan: moves/<id>.json, what one move is doing; written before the
//     first copy, removed after the last removal.
//   - source, destination: the workspace folders (by key) the session
//     leaves and reaches; FromPath and ToPath are their directories.
//   - commit: the rename of the items journal into the destination's
//     sessions folder. Before it a move is rolled back, after it finished.
//
// # The steps
//
// One session moves in this order, each step durable before the next:
//
//  1. WritePlan: the plan.
//  2. Copy: the session's payload objects into the destination's store,
//     its tool outputs into outputs/<id>/, its task records and sub-agent
//     transcripts into tasks/<id>/ (after the objects they name), its
//     trail and shell journals, its changes journal holding only the start
//     line, and last the items journal, its session line naming the new
//     directory and a moved line ending it (the commit).
//  3. RemoveSource: the source's files, the items journal first; the
//     engine then rebuilds the record at the destination, and DropPlan
//     removes the plan.
//
// A crash leaves a plan behind (Plans lists it): the next open finishes the
// move when the destination's items journal is there, and otherwise
// RollBack takes the destination's copies away (objects stay: they are
// content-addressed, and a prune takes those no line names).
//
// # Locks
//
// Nothing here holds state. The session's ownership lock in both workspace
// folders is held for every step, so no process opens the session
// meanwhile: the engine takes the source's before Move, and Move and
// Recover take the others through Owner, the engine's locks. A plan whose
// session lock is held belongs to a move that is running, and is left
// alone.
//
// # Line formats
//
// Part of the format: the plan file, the changes journal's first line, and
// the items journal's last line after a move:
//
//	{"v":1,"kind":"move","session":ID,"from":KEY,"to":KEY,"from_path":DIR,"to_path":DIR,"at":T}
//	{"v":1,"kind":"start","at":T,"why":"moved","from":DIR}
//	{"v":1,"kind":"moved","at":T,"from":DIR,"to":DIR}
package migrate
