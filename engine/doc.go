// Package engine is cairn's storage engine for coding-agent sessions: a
// Store (one state folder) holds Workspaces (one per canonical directory),
// and each workspace holds Sessions.
//
// It is the public layer: each public method checks its input, takes the
// locks (see Locks), runs a mechanism from a package below it (they hold
// no locks and know no Session), and writes the journal line in the
// durability order. Imports point down only. doc_map.go maps the engine's
// own code for its readers: each file group's job and locks, and a tool
// write and a file revert step by step.
//
// # Words
//
//   - state folder: the folder a Store opens ($CAIRN_HOME or ~/.cairn for the
//     cairn command), created 0700 (files 0600), with a FORMAT file; a newer
//     format is refused.
//   - workspace: a canonical directory and its folder workspaces/<key>, the
//     key a reversible encoding of the path (package wskey).
//   - session: a conversation in one workspace, named by a version 4 UUID.
//   - item: one entry of the conversation (the item types below: user,
//     assistant, reasoning, tool_call, tool_result, compaction, report,
//     message, reminder), linked to its parent.
//   - head: the item that ends the active path; moving it deletes nothing.
//   - journal: an append-only JSONL file; the journals are the truth.
//   - record: <id>.json, the summary the picker shows and a resume needs,
//     derived from the journals.
//   - trail: <id>.audit.jsonl, a line a turn, labels and gate names only.
//   - changes journal: <id>.changes.jsonl, the file tools' change lines
//     and other calls' records; a snapshot is one change line as the undo
//     stack sees it (undo, redo and restore-to move between snapshots).
//   - object: a file's content kept under its SHA-256 in the workspace's
//     objects/ folder (package cairn/objects, "the snapshot store").
//   - Degrade mode (SessionOptions.Degrade): a session that cannot write
//     its journals goes on in memory, keeps the lines and writes them when
//     a later write works.
//   - owner: the process holding the flock on <id>.lock, which holds its
//     pid, then "brief" for an owner that holds it for one call (a hook).
//   - the user's files: read and written only through an os.Root of the
//     workspace (wsfs.go); when the workspace holds a state folder, that
//     root is fenced off from it (vfs.Fenced), links or not.
//
// # Files
//
// engine/internal/layout draws the state folder's files and folders;
// engine/internal/convlog the conversation's (items journal, record, trail,
// usage ledger, Degrade mode), engine/internal/changes the changes journal.
//
// # Durability
//
// A session comes into being by one rename: a creation that fails leaves
// nothing. Items are appended as they come and synced once per turn: a turn
// EndTurn returned survives a crash; Session.Commit syncs between turns.
// The record is derived, rebuilt when stale; Session.RefreshRecord writes
// it at once. A file tool's change line, holding the file's pre-image, is
// durable before the file changes, and the file is always its old or its
// new version; what a crash left unsettled the next owner settles. Objects
// are durable before the line that names them. doc_map.go has the whole
// order.
//
// # Degrading
//
// For the conversation see engine/internal/convlog. While no pre-image can
// be recorded (the snapshot store or the changes journal cannot be
// written), a file tool that would replace or remove a
// file is refused (ErrRefused) and changes nothing: the fault passes, a
// destroyed file does not come back. A new file is still made, named as not
// snapshotted; a file over max_file_bytes is still changed without one.
//
// # Embedding
//
// A runtime outside this module needs only this package: Open (or
// OpenEphemeral), Store.Workspace, Workspace.Create or Open, and the
// session's items and file tools, on the real disk (example_test.go). What
// the cairn command takes from its environment comes in as options
// (WithMaxEagerLoadMB, WithEphemeralRoot): the engine reads no environment
// variable, and what it tracks in a process hangs off its Store, so closed
// stores are garbage. OpenFS, Store.FS and WithWorkspaceFS take cairn's
// internal filesystem seam; they serve its own tests.
//
// # Locks
//
// A Session, its Workspace and its Store are safe for use by several
// goroutines, and no lock is held across the API boundary: Session.Change
// (an embedder's own file tool) holds the session's file changes only while
// its function runs; it records the change when the function returns nil,
// and nothing when it fails or panics.
// Ownership of a session across processes is tried, never waited for: a
// second owner fails at once (ErrBusy). A call that cannot take its
// workspace's call lock is refused (ErrRefused) and runs nothing.
// doc_map.go gives the locks' order.
package engine
