// Package callrec records calls other than the file tools (a shell line,
// an MCP or plugin tool): what such a call may change is captured before
// and after it (Capture, over package scope's walks and the session's
// stat cache), the store's refusals decide whether it runs unrecorded
// (Refused, UnrecordedText), the start and off lines mark where recording
// was off (Marks), the workspace's change store is kept within its budget
// (Trim, drops.jsonl: budget.go, part of the format), and the workspace
// call lock keeps a file revert out while any call runs (Lock, lock.go).
//
// The stat cache of a workspace's walks (State.Cache) is kept between
// processes in workspaces/<key>/statcache (its format:
// engine/internal/scope/cache.go), derived data: loaded by a session's
// first record, saved when the session closes if its walks changed it
// (atomic rename, the last writer wins; a session whose calls changed no
// file writes and syncs nothing), rebuilt by the next walk when missing
// or unreadable. It only ever learns hashes whose content its walk
// stored; a record checks that the object of each content before it
// names is still there (Stored). A session trusts the cache it holds in
// memory for Capture.Trust only: prune keeps the objects the cache file
// names, not those a live session learned since, and removes unnamed
// objects once TrashDays old.
//
// Its words: a scope (None, Paths, Workspace) is what a call may change; a
// record is the call line, the call, and the record line keeping what
// changed; a refusal is a record the store will not make, so the call
// runs without one.
//
// # Locks
//
// State and Capture hold none: the engine's undo stack lock
// (snapStack.mu) guards a session's State and every Capture of it. Lock
// guards its own fields with its mutex, a leaf; the flock it holds shared
// is the workspace call lock, taken before the undo stack's lock.
//
// It imports engine/internal/changes, fstate, overlap, scope, objects and
// internal/vfs; it knows no session, and engine imports it.
package callrec
