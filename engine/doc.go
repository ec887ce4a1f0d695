// Package engine is cairn's storage engine for coding-agent sessions: a
// Store (one state folder) holds Workspaces (one per canonical directory),
// and each workspace holds Sessions.
//
// It is the public layer: each public method checks its
// input, takes the locks (see Locks), runs a mechanism from a package
// below it, and writes the journal line in the durability order. The
// mechanisms each own one idea, hold no locks and know no Session:
//
//	engine/internal/changes  the changes journal: lines, the fold into the undo
//	                         stack, plans and the one applier   -> fstate, timefmt, vfs, objects
//	engine/internal/fstate   a file's state: capture, compare, put back through
//	                         the workspace root                 -> internal/vfs, objects
//	engine/internal/patch    apply_patch's patches: git diffs and the Begin Patch
//	                         envelope, parsed and applied in memory -> go-gitdiff
//	engine/internal/scope    what a record covers: shell-line scopes, the
//	                         workspace walk, stat cache, Diff, watcher -> vfs, objects
//	engine/internal/overlap  calls that run at the same time: which join one
//	                         unit, and the unit's net change      -> changes, fstate, scope
//	engine/retention         keep rules over (id, activity, flags), pure
//	engine/wskey, engine/ids workspace keys; slugs and shell-job labels
//
// Imports point down only: nothing below engine imports engine. The map
// of the engine's own files (each group's job and locks, and a tool write
// and a file revert step by step) is doc_map.go, for readers of the code.
//
// # Words
//
//   - state folder: the folder a Store opens ($CAIRN_HOME or ~/.cairn for the
//     cairn command), created 0700 (files 0600), with a FORMAT file; a newer
//     format is refused.
//   - workspace: a canonical directory and its folder workspaces/<key>, the
//     key a reversible encoding of the path (package wskey). A damaged
//     workspace.json in the folder of the directory's own key is rebuilt
//     from the sessions in it, or refused (workspace_info.go).
//   - session: a conversation in one workspace, named by a version 4 UUID.
//   - item: one entry of the conversation (user, assistant, reasoning,
//     tool_call, tool_result, compaction), linked to its parent.
//   - head: the item that ends the active path; moving it deletes nothing.
//   - journal: an append-only JSONL file; the journals are the truth.
//   - record: <id>.json, the summary the picker shows and a resume needs,
//     derived from the journals and rebuilt when missing, unreadable or
//     older than them.
//   - trail: <id>.audit.jsonl, a line a turn, labels and gate names only.
//   - owner: the process holding the flock on <id>.lock, which holds its
//     pid, then "brief" for an owner that holds it for one call (a hook).
//   - the user's files: read and written only through an os.Root of the
//     workspace (wsfs.go); when the workspace holds a state folder, that
//     root is fenced off from it (vfs.Fenced), links or not.
//
// # The conversation's files
//
// The items journal (<id>.items.jsonl), the record (<id>.json), the trail
// (<id>.audit.jsonl) and the usage ledger (usage.jsonl) are drawn line by
// line in engine/internal/convlog's package doc, with Degrade mode (a
// session that cannot be written goes on in memory) and unavailable items
// (a payload object that cannot be read back).
//
// # Folders
//
//	<state folder>/FORMAT, config.json, history.jsonl, usage.jsonl
//	<state folder>/workspaces/<key>/
//	  workspace.json, index.json (package index)
//	  sessions/<id>.items.jsonl, .changes.jsonl, .audit.jsonl, .shell.jsonl, .json, .lock
//	  sessions/fork.lock       held while a fork numbers and makes its child (fork.go)
//	  owners/<id>              the owner's pid, a hint for listings (owner.go)
//	  outputs/<id>/<output id>.zst
//	  tasks/<id>/tasks.jsonl, tasks/<id>/<task id>.items.jsonl   task records, sub-agent transcripts (task.go)
//	  tasks/<id>/work.jsonl    background work: receipts, results, reports, deliveries (background.go)
//	  tasks/<id>/inbox.jsonl   messages from other sessions and scripts (messages.go)
//	  hooks/<id>/<call>.json, <call>.tree   an agent's tool call between its pre- and post-tool
//	                           hooks: a file edit's pre-images (hook.go), a shell command's
//	                           walk (hook_exec.go), kept past its end while its unit of
//	                           calls runs on (overlap.go); forget moves them with the session
//	  hooks/<id>/transcript.read   how far the hooks read the agent's transcript (AgentMark)
//	  hooks/<id>/items.idx         the prompt hook's index of the items journal (hook_prompt.go)
//	  objects/<2 hex>/<62 hex>[.zst]  (package objects)
//	<state folder>/gateway.token, credentials.json, credentials.lock (package httpapi)
//	<state folder>/moves/<id>.json   a session move in progress (migrate.go)
//	<state folder>/plans/<id>.json   a forget, restore or trim in progress (retention_plans.go)
//	<state folder>/repos/<hex>.json  the checkouts of a git repository (checkouts.go)
//	<state folder>/hook-installs.json  the hook lists a user had empty, per agent settings file,
//	                           that hook uninstall leaves (package hookkept)
//	<state folder>/trash/<id>/  a forgotten session, restorable for 7 days (retention_trash.go)
//	<state folder>/sweep.json, sweep.lock  the last retention sweep; held while one runs (retention_sweep.go)
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
// For the conversation's journals see engine/internal/convlog. For the file
// tools:
//
// While no pre-image can be recorded (the snapshot store or the changes
// journal cannot be written), a file tool that would replace or remove a
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
// goroutines. Their mutexes, in the one order they may be taken: a
// goroutine holding one may take only those below it.
//
//  1. Session.busy (RWMutex): shared by a file tool, Session.Change (while
//     its function runs), a recorded call (recordCall: Exec, RecordCall,
//     while the call runs), undo, redo and restore-to; exclusive by Close,
//     so Close waits for them and none starts after it.
//  2. Session.snaps.mu, the undo stack: held by the same calls, so the
//     file changes of one session take turns; and by the fold on Open. A
//     call waits for it with its context (internal/ctxsync), so a cancel
//     ends the wait.
//  3. Session.mu: the conversation state and the session's own journals
//     (items, audit), the record, closing.
//  4. Leaves, each held only briefly, never two at once (doc_map.go lists
//     them).
//
// No lock is held across the API boundary: Session.Change holds 1 and 2
// only while its function runs, and ends the change (recording nothing)
// however the function returns, panics included. Ownership across
// processes, the flock on <id>.lock, is outside this order: it is tried,
// never waited for (a second owner fails at once), when a session is
// opened or first written. So is the workspace call lock, the flock on
// workspaces/<key>/calls.lock: every call (file tool, Change, shell line,
// recorded call, apply_patch) takes it shared between 1 and 2, waiting only
// while a file revert holds it; a file revert or unrevert tries it alone,
// under 2, and never waits (busy). A call that cannot take it is refused
// (ErrRefused) and runs nothing.
package engine
