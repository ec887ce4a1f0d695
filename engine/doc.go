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
// # The changes journal
//
// <id>.changes.jsonl holds a "change" line per file-tool call and the undo
// stack's events (engine/internal/changes/format.go draws every line):
//
//	{"v":1,"kind":"change","id":SNAP,"seq":N,"at":T,"tool":"edit","call":ITEM,"item":ITEM,
//	 "scope":"paths","files":[{"path":P,"before":F|null,"after":F|null}]}
//
// "call" names the item the change belongs to: the tool_call item given by
// the caller (ToolOptions.Call, Change.SetCall), else the user prompt that
// began the turn (REPL tool lines have no tool_call item); it is omitted
// when the conversation has no prompt yet, and lines written before it
// have none and read as they did. "item" (on this line and on every
// other line that changes files) is the newest item of the conversation
// when the line was written ("" when it had none): where the line lies
// among the items, for a file revert's boundary, which never compares
// times (they tie within a millisecond); lines written before it have
// none and are placed by their time. A file's state F is
// {"oid":SHA256,"size":N,"mode":"file|exec|link","perm":"0640"} (stored as
// an object), {"sha256":SHA256,"size":N,"mode":...,"perm":...,"data":BASE64}
// (a pre-image of at most 16 KiB, inline; or a file tool's "after" of at
// most 16 KiB, for redo), {"sha256":SHA256,"size":N,
// "mode":...,"perm":...} (the content's hash only, no object: a change's
// "after"), {"skipped":REASON,"size":N}, or null (absent). "oid" always
// names an object that exists. "perm" is a regular file's permission bits
// as four octal digits (a link has none); lines written before it have
// none, and read as they did. An "abort" line cancels a change whose file
// the tool did not change.
//
// Records of other calls (shell lines, recorded tools) share the journal:
// "call", "record", "unrecorded", "start", "off" and store-budget "drop"
// lines (engine/internal/changes/records.go; callrec.go writes them). The
// undo stack skips them (seed 001: undo covers the file tools); file
// revert reads both kinds in journal order, and Snapshots lists both (the
// records as SnapshotList.Records). An agent's shell command under hooks
// writes its "call" and "record" lines together in its post-tool hook
// (hook_exec.go): its pre-tool hook leaves a marker, not a call line,
// which the next hook's Open would close as interrupted.
//
// Tool calls that run at the same time (an agent's parallel calls, whose
// hooks interleave) each see the others' changes. A call that begins while
// a call whose scope meets its own runs joins that call's unit, and the
// unit's last call to end writes an "overlap" line: each file the unit
// covers from what it held when the first call covering it began to what
// it holds at the unit's end (engine/internal/overlap has the rules,
// engine/internal/changes/overlap.go the line, overlap.go the markers).
// File revert reads a unit as one step, reverted whole or not at all; the
// undo stack reads its file tools' own change lines, so undo of one puts
// back its own pre-images. Calls whose scopes do not meet keep their own
// records. A file revert waits for no agent's call: it refuses while one
// is pending.
//
// An agent's prompt a hook recorded with the agent's prompt id has the
// item id an import derives from that id ("prompt:"+ID); without one an
// import finds it by its text and time (import_prompts.go). An agent's
// tool call gets the item id an import derives from the agent's call id
// ("call:"+ID), which a hook's change record names before the call's item
// is there (agentCallItem, import_lines.go); until it is, file revert places the
// record by the newest item when the call began, which its marker keeps
// (began, hook.go), as it places the calls of an overlap line. The pre-
// and post-tool hooks open the session for its change records only
// (hook_open.go).
//
// # Permission bits
//
// A file a tool writes over keeps its bits; a file it creates gets 0666
// less the umask, its new folders 0777 less it. Undo puts back the bits
// the file had before the tool, even after a hand chmod since; redo puts
// back the bits the undo found (a hand chmod made after the tool comes
// back with it). A chmod made after an undo is a change of the file: redo
// refuses to overwrite it, as it refuses for content.
//
// # Undo that cannot put files back
//
// A file an undo or redo cannot put back (its pre-image not captured, its
// object missing or damaged, its current content impossible to keep for
// redo, a write that fails) is left as it is and named with why. An undo or
// redo that can put back no file at all is refused (RestoreError) and uses
// up nothing; a restore-to goes past such a snapshot. When its line was
// written and every write failed, it cancels itself with the opposite
// line; one that cannot be written yet is owed, and goes before any other
// line (the next file tool, undo, redo or restore-to is refused until it
// is written): no change may end the branch of a snapshot the files still
// hold. Lines of the changes
// journal the stack cannot read are named by the stack's answers
// (UnreadRecord), as storage fsck names them.
//
// # Other files
//
// Each is drawn in the file that writes it: tool outputs
// (outputs/<session>/<output id>.zst, outputs.go), attachments (objects
// named by items, attach.go), task records and sub-agent transcripts
// (tasks/<session>/, task.go), the background-work ledger
// (tasks/<session>/work.jsonl, engine/internal/bgwork), a session's inbox
// (tasks/<session>/inbox.jsonl, engine/internal/inbox), shell history
// (<id>.shell.jsonl, shell.go), the usage ledger (usage.jsonl, usage.go),
// prompt history (history.jsonl, history.go), config.json (config.go), and
// ownership hints (owners/<id>, owner.go), the records the workspace
// store's budget dropped from other sessions (drops.jsonl,
// internal/callrec/budget.go). The HTTP API's gateway.token and
// credentials.json are package httpapi's. Moving sessions to another
// directory (moves/<id>.json plans, the ledger's move lines) is drawn in
// package migrate, the checkouts of a repository (repos/) in package
// checkouts, and how the state folder is measured (Stats, ChangeStores)
// in package stats. Retention's lines and files — the trim's "start" line
// of a changes journal, a trimmed shell "end" line, the tier and pinned
// meta lines, the trash, the plans and the sweep's stamp — are drawn in
// retention_trim.go, retention_trash.go, retention_plans.go (with package
// fileplan) and retention_sweep.go.
//
// Temp files, in the state folder and beside the user's files alike, are
// named ".<name>.<pid>-<16 hex>.cairn-tmp" (the grammar of internal/vfs).
// Only a file of exactly that shape whose process is gone is ever removed:
// at each open (and when a new session is first written), in the state
// folder's folders, and in the workspace folders
// named by the change lines of a session whose owner died (temps.go).
//
// # Durability
//
// A session comes into being by one rename: its items journal is written
// whole under a temp name, with its session line and the line that made it
// worth keeping, synced, and renamed into place (a fork writes its change
// records and tool outputs first and its items journal last). A creation
// that fails leaves nothing, not even its lock file; a session this process
// made that still holds only its session line when it closes is removed.
//
// Items are appended as they come and synced once per turn: EndTurn syncs
// the items journal and the workspace folders the turn's file tools
// changed at once, so a turn that returned survives a crash. Its trail and
// usage lines are written, not synced: the turn line says all they say, an
// open puts back what a crash lost of them (matched by turn number and
// time), and Close syncs both and records "settled_turn" in the record
// (turn_settle.go). Session.Commit syncs the items journal and the trail
// between turns. The record is replaced by atomic rename when the title changes
// and otherwise at most every two seconds, without a sync (it is derived:
// a stale or empty record is rebuilt from the journal), and durably when
// the session closes. Session.RefreshRecord catches it up with the synced
// journal at once, for a runtime going idle (the REPL waiting for a
// line). Objects are durable before the line that names them is written.
//
// A record says which journal size it reflects ("journals":{"items":N}). An
// open rebuilds a record that differs from its journal; a listing does so
// for a session whose owner died without closing it (its owners/<id> hint
// left behind, record_stale.go) and for a record dated in the future; fsck
// notes both. A journal that holds lines and none that reads is never
// opened for writing (UnreadableError). A line dated more than a minute
// ahead of the clock is not activity: it does not move updated_at
// (times.go).
//
// A file tool (write, edit, rm, apply_patch) writes its change line first: the line,
// holding the pre-image inline or naming its durable object, is synced
// while the new content is staged in a temp file beside the file and
// fsynced; only then does the temp file take the file's place (an atomic
// swap or rename). So the pre-image is durable before the file changes,
// and the file is always its old or its new version. When the new content
// is at most 16 KiB the line holds it too ("after" inline), and the folder
// is synced at the end of the turn, once for all such edits (changes.Syncs):
// edits in a row wait for their line and their staged content, synced at
// once, and for nothing else. A crash may then lose the swap of any of
// them while later lines are durable; the next owner, when the machine
// started since the journal was last written (a power loss; a killed
// owner lost nothing), makes each again from its line (settleUnsettled,
// changes.Stack.RedoPlan), all but the newest, which is judged as below;
// either way it syncs their folders (a killed owner's may not be durable)
// and writes a close line, so that no later open looks at them again. The end of the turn, once those
// folders are synced, writes a close line (riding with the journal's next
// sync) so that no owner looks at them again; it writes none while an
// undo, redo or restore runs beside it, nor once a folder sync of the run
// failed (nor does Close then). A change's file as before any unsettled
// change behind it counts as before it too (changes.Stack.Unmade). A larger file's folder is
// synced in the background. The next file tool's change line is
// synced meanwhile, and that tool waits for the folder sync only before it
// changes its own file; every other line of the changes journal waits for
// it before it is written. So a crash can leave the two newest changes unmade (the older one only
// together with the newer, which had not returned), their files still as
// "before". The next owner judges them newest first (loadChanges): the
// newest is unmade when its files are as its "before", or, for a file the
// change before it changed too, as that change's "before" (the same file
// written twice in a row and both writes lost); it writes the newest's
// abort line, and when it wrote one, judges the change before it the same
// way and may write its abort too, unless that one can be made again from
// its line. A file as a change's "after" counts as
// made. A patch
// (one line, several files) found with some files new and the rest old
// has the new ones put back first (patch_recover.go). An undo or
// redo a crash stopped before its files were put back is finished by the
// next owner from its line. A clean Close writes a close line, after which
// nothing is settled. An agent's post-tool hook (SessionOptions.Brief)
// writes it with its change line (or a shell command's record line), under
// the line's one sync: the agent made the files before.
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
//     file changes of one session take turns; and by the fold on Open.
//  3. Session.mu: the conversation state and the session's own journals
//     (items, audit), the record, closing.
//  4. Leaves, each held only briefly, never two at once: Workspace.mu
//     (making the workspace folder), Session.snaps.wr (the changes
//     journal's writer: Close takes it without the stack's lock), the
//     shell log's mu, the task log's mu (task.go), Session.cfg.mu (reading config.json), changes.Syncs.mu
//     (the background folder syncs, which take no session lock), the
//     Store's usage-ledger lock and its registries of live shell logs and
//     tool outputs, and the picker index's own lock. One leaf takes
//     another, always in this order: a callLock's mu (the count of the
//     store's calls holding a workspace's call lock) takes its kept-open
//     lock file's own (vfs.SharedLockFile).
//
// No lock is held across the API boundary: Session.Change holds 1 and 2
// only while its function runs, and ends the change (recording nothing)
// however the function returns, panics included. Ownership across
// processes, the flock on <id>.lock, is outside this order: it is tried,
// never waited for (a second owner fails at once), when a session is
// opened or first written. So is the workspace call lock, the flock on
// workspaces/<key>/calls.lock (calls_lock.go; a store keeps the file open
// and holds the flock while any of its calls runs): every call (file tool,
// Change, shell line, recorded call, apply_patch) takes it shared between
// 1 and 2, waiting only while a file revert holds it; a file revert or
// unrevert tries it alone, under 2, and never waits (busy).
//
// The rule of the call lock: no call runs without it. A call whose lock
// cannot be taken for any reason but a file revert holding it (the
// workspace folder or calls.lock cannot be made, opened or locked) is
// refused (ErrRefused), naming why, and runs nothing: the lock is all that
// keeps a file revert of another session, in any process, from putting
// back files the call is changing, and a safety check never passes on
// "cannot tell". The same goes for every check a file revert makes before
// it writes: one that cannot read what it checks (the other sessions'
// changes journals, drops.jsonl) refuses it.
package engine
