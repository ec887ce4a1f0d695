package engine

// # Where things are
//
// A map of the engine's own code, for a reader who has not seen it (an
// embedder needs only the package comment, doc.go; this map, doc_map.go,
// uses its Words). Every name written with a dot (Session.runTool,
// changes.Check) is the code's own: a test (TestDocMapNamesExist in
// internal/doccheck) checks that each exists, and that every file of the
// root and every package below it is named here.
//
// Locks are numbered in their order ("Locks, in full"): (1) Session.busy,
// (2) snapStack.mu (changesLog.snaps), (3) Session.mu, then leaves. "The
// call lock" is the workspace's calls.lock flock (calls_lock.go);
// "ownership" the flock on <id>.lock, tried, never waited for.
//
// ## The root, by file group
//
// Store and workspaces: store.go home.go ephemeral.go config.go errors.go
// ids.go times.go workspace.go workspace_info.go wsfs.go checkouts.go
// history.go usage.go view.go view_stream.go list_head.go temps.go. Opening a state folder (FORMAT, the recovery
// of a crashed move or plan), a workspace per canonical directory, the
// user's files through one os.Root (Workspace.files), reading sessions
// without owning them (View), the store's own files (history.jsonl,
// usage.jsonl, repos/). Locks: Workspace.mu (leaf, while the workspace
// folder is made), Store.usageMu (leaf, the usage ledger); no session lock.
//
// A session and its conversation: session.go (the type and its parts)
// session_open.go session_close.go session_write.go append.go
// session_config.go session_readonly.go session_runs.go conv.go state.go
// load.go item.go payload.go degrade.go
// owner.go record.go record_stale.go commit.go turn.go turnend.go
// turn_settle.go audit.go draft.go compact.go
// attach.go fork.go revert.go. Create and Open (ownership), the fold of the
// items journal into the conversation (Workspace.fold, state), appending
// items and trail lines, the record, the end of a turn, Degrade mode,
// forks and the conversation half of a revert (a head line). Lock: (3)
// Session.mu over the conversation (convLog), the items journal, the
// trail and the record; sessions/fork.lock while a fork numbers its child.
//
// The changes log: changes_log.go changes_recover.go snapshot_capture.go
// snapshot_list.go snapshot_preimages.go snapshot_restore.go. The undo
// stack folded from <id>.changes.jsonl (foldChanges), its one writer
// (Session.writeChanges with a changes.Durability, a mode writer.go in
// engine/internal/changes draws), settling on open (Session.loadChanges),
// undo, redo and restore-to (Session.restore, run by snapshot.Run),
// Session.Change, and the background folder syncs (changes.Syncs). Locks:
// (2) snapStack.mu over the fold, taken by every file change of the session
// (file revert too), not only undo; the writer's own mutex (leaf,
// changes.Writer); the folder syncs' (leaf, changes.Syncs). changes_log.go
// says which field each guards.
//
// The file tools: tools.go tools_call.go tools_run.go patch_run.go
// patch_recover.go. write, edit, rm (a tools.Plan each: tools.Write,
// tools.Replace, tools.Remove) and apply_patch (tools.PlanPatch), line
// first. Locks: (1) shared, the call lock shared, then (2), taken together
// by Session.enterCall.
//
// Recorded calls and shell lines: callrec.go callrec_capture.go calls_lock.go exec.go
// exec_scope.go shell.go overlap.go diff.go. A call other
// than a file tool (a shell line, RecordCall) recorded by comparing its
// scope before and after it (Session.recordCall), the call lock, calls
// of an agent that run at the same time (overlap units), and Diff. Locks:
// (1) shared, the call lock shared, (2) while lines are written; the shell
// log's own mutex (leaf).
//
// File revert: revert_files.go revert_at.go revert_foreign.go
// revert_unrevert.go. Putting back the files this session's records
// changed after an item, and unrevert. Locks: (1) shared, (2), (3) only
// to read the boundary, and the call lock alone, tried (never waited for).
//
// Tasks: task.go task_names.go task_read.go. Sub-agent tasks and
// background shell jobs, over package tasks. Locks: (3), and the task
// log's own mutex (leaf).
//
// Background work and messages: background.go background_session.go
// background_shell.go background_remind.go background_held.go messages.go. How task and shell calls run (package
// execpolicy), the ledger of a session's background work (package bgwork;
// the tasks the task records keep are listed there too) and its inbox of
// cross-session messages (package inbox), delivered into the conversation
// as items, with the reminders of running work after a compaction and every
// N turns (config.json). A background shell line is recorded as an agent's
// shell call under hooks is (hook_exec.go), so calls run meanwhile join its
// unit. A remote workspace's background line runs on its host (ShellJob)
// and is held work of the client's session, settled with the host's
// outcome (background_held.go). Locks: sessionWork.mu (the session's part that runs its background
// work, background_session.go), and the ledger's and the inbox's own
// mutexes (leaves).
//
// Past this machine: remote.go remote_link.go remote_local.go
// remote_workspace.go. Sync with object
// storage (package remote: objects once, journal segments, a lease per
// session, a log per machine) and a session's binding to a remote workspace
// over ssh (its host, path, identity and generation, a line of the items
// journal; the protocol is in remotews below the module root). Locks: the
// session's own (1) to write the binding; a remote's lease stands for
// ownership across machines, beside the session's flock.
//
// Agents' hooks and imports: hook.go hook_exec.go hook_open.go
// hook_prompt.go state_index.go hook_kept.go import.go import_lines.go import_prompts.go
// import_tasks.go (the lines an import makes in package agentimport). Claude Code's and Codex's pre- and post-tool hooks (a
// session opened for its change records only, for one call), the prompt
// hook (a session opened from the hooks' index, the items journal's lines
// after it folded on), what hook install noted of the agent's settings
// file, and imports of their transcripts. Locks: those of the file tools
// and recorded calls above, and ownership held briefly.
//
// Tool outputs: outputs.go (the mechanism in package outputs). A tool's
// whole output kept beside a truncated result. Locks: (3) to name an
// output; Store.outputNames (leaf).
//
// Storage upkeep: retention_plan.go retention_plans.go retention_prune.go
// retention_run.go retention_sessions.go retention_sweep.go
// retention_trash.go retention_trim.go migrate.go (its steps in package
// migrate) stats.go (its walks in package stats) fsck.go (its checks in
// package fsck). Trim, forget and restore, prune, the background sweep,
// moving sessions, storage stats and fsck. Locks: no session mutex; each
// session's ownership, tried (a session open elsewhere is skipped or
// refused), and sweep.lock while a sweep runs; plans/ and moves/ make each
// step whole across a crash.
//
// ## The packages below the root
//
// None holds a lock of the engine; those with a mutex of their own say
// so. Each package's doc.go says its words and line formats.
//
//	agentimport another agent's session as cairn lines (ids, hooks' prompts met)
//	attach     storing attachments under the cap, checking those an item names
//	audit      the trail's lines and rule: labels and counts, never content
//	bgwork     the ledger of a session's background work; it holds mutexes of its own
//	callrec    recorded calls: the capture before and after, refusals, the
//	           store budget, the workspace call lock (callrec.Lock)
//	changes    the changes journal's lines (Decode), the folds (Stack.Fold,
//	           Records.Fold, Timeline.Fold), plans, and the one Applier; its
//	           writer (changes.Writer) and folder syncs (changes.Syncs)
//	checkouts  the worktrees of a git repository, and repos/
//	config     config.json, parsed and checked (config.Parse)
//	convlog    the conversation: its types, the fold (State), reads and streams,
//	           compaction, the fork plan and its lock, payloads, the record file,
//	           Degrade mode's lines, the turns a crash left unsettled
//	durable    a copy, move or removal of state-folder files a crash leaves whole
//	ephroot    the temporary state folders of ephemeral stores
//	errs       the engine's sentinel errors
//	execpolicy how a task or shell call runs: waited for, or in the background (pure)
//	fileplan   a plan made durable first, replayed or rolled back on open
//	fsck       fsck's checks of plain files (objects, the lines naming them)
//	fstate     a file's state: capture, compare, stage and put back
//	history    history.jsonl; history.Log holds a mutex of its own
//	hookkept   what hook install noted of an agent's settings file, for uninstall
//	hookmark   the pending markers between an agent's pre- and post-tool hooks
//	hookrec    what a prompt hook reads instead of the whole session: the
//	           transcript mark and the items index (derived, caches)
//	inbox      a live session's inbox of cross-session messages; a mutex of its own
//	layout     the names of a state folder's files and folders
//	listing    the workspace folders and their paths, a folder's sessions, the
//	           future-dated rows of a listing, live owners read without locking
//	migrate    the steps of a session's move to another workspace
//	objref     the objects a line or file names
//	outputs    tool outputs kept whole beside a truncated result
//	overlap    which calls running at the same time join one unit
//	owner      a session's lock and owner hint; a dead owner's temp files
//	patch      apply_patch's patches, parsed and applied in memory
//	prune      what a prune removes (the objects a workspace still reaches), the sweep's mark
//	remote     sessions on object storage: push, pull, leases, remote retention;
//	           file:// built in, the cloud providers registered by import
//	           (remote/cloudblob is the cloud bucket they share)
//	revert     a file revert's and an unrevert's boundary, refusals, writes and answers
//	scope      what a record covers: shell-line scopes, the walk, Diff
//	shell      shell history; shell.Log holds a mutex of its own
//	shellproc  shell lines started so that they die with cairn
//	snapshot   undo, redo and restore-to at work (snapshot.Run), and their answers
//	stats      where the disk went, in parts that add up
//	tasks      task records and sub-agent transcripts; tasks.Log has a mutex of its own
//	titles     a session's title, cut from its first prompt or named on one line
//	tools      the file tools' plans, apply_patch worked out in memory, staging
//	trash      forgotten sessions and their entries, plans, a trim's steps
//	usage      the usage ledger and a session's queue of lines for it
//	wsinfo     a workspace folder whose workspace.json is disputed, settled by its sessions
//
// Beside them, public: engine/retention (keep rules, pure), engine/wskey
// (workspace keys), engine/ids (slugs and shell-job labels) and
// engine/remotes/s3, azblob and gcs (the cloud remotes, which a program
// imports to register them: the engine links none of their SDKs).
// Under them all, at the module root: objects (a workspace's objects/
// folder; objects.Store.Get checks what it reads against the SHA-256),
// journal (JSONL files), index (the picker index) and internal/vfs (the
// filesystem seam, with its fault and crash variants for tests).
//
// ## One tool write, step by step
//
// Session.ToolWrite (tools.go) with a tools.Write plan:
//
//  1. Session.runTool takes (1) shared; Session.newToolRun checks the path
//     (never in the state folder, never out through a link) and opens the
//     workspace's files.
//  2. Session.enterCall takes the call lock shared (Session.beginCall,
//     waiting while a file revert holds it) and then (2), and writes the
//     cancel lines still owed (Session.payCancels).
//  3. tools.Run.Capture (the session lent as a tools.Host: sessionHost,
//     tools_run.go) runs tools.Write.Plan (no need of the file's content)
//     and stages the new content in a temp file beside the file
//     (tools.Start, fstate.Stage) while snapshot.PreImages.Capture stores
//     the pre-image (inline or as an object, fstate.Capture).
//  4. Session.unitBeginOrSay joins a unit of an agent's calls running at
//     the same time that covers the path (a failure is only said, a notice).
//  5. Session.makeToolRun runs tools.Run.Make: recordLine makes the change
//     line (Stack.NewRecord) and writes it, the changes journal's line:
//     sessionHost.Write, Session.writeChanges, mode ahead, takes the
//     writer's lock, appends and syncs (changes.Writer.Write, journal.Writer).
//  6. Then waitPrevious waits for the folder sync of the tool before.
//  7. Then swapIn waits for the staged content to be durable and swaps
//     it in (Staged.Exchange), or cancels the change with an abort line
//     (Session.abortChange) if anything failed.
//  8. Then settle puts the change on the undo stack
//     (Stack.Committed) and makes the answer.
//  9. Session.makeToolRun ends the unit, and changes.Syncs.Later syncs the
//     folder in the background; the next tool, every other changes line
//     and the end of the turn wait for it.
//
// A new file tool is a tools.Plan (its Plan method gives a tools.Edit: what
// to write, or a removal) and a Session method in tools.go that calls
// Session.runTool with it; its change line needs nothing new ("tool" names
// it). A tool of several files takes apply_patch's path (patch_run.go,
// tools.Run.CapturePatch). cli/tool.go, cli/mcp.go and remotews (remote
// workspaces) offer the tools; an embedder's own tool uses Session.Change.
// Tests: toolline_test.go, tools_call_test.go; newMemEnv (outputs_test.go)
// opens a store on a vfs.Mem, with faults.
//
// The conversation's own lines take another path: Session.Append takes
// (3) and calls Session.add, then Session.writeLine, which makes the
// session's files on its first line (Session.materialize) or appends
// (Session.appendItem; in Degrade mode a failed line is kept, convlog);
// Session.commit syncs them at EndTurn or Commit (commit.go).
//
// ## One file revert, step by step
//
// Session.Revert (revert.go) with RevertFiles or RevertBoth (not
// RevertConversation, a head line only) calls Session.revertFiles:
//
//  1. It takes (1) shared and refuses while a call of the session runs
//     (Session.refuseRunning) or recording is off.
//  2. It takes (2) and writes owed cancel lines (Session.payCancels); it
//     takes (3) only to find the item (revertItem) and its boundary
//     (revertAfter).
//  3. Session.lockCallsAlone tries the call lock alone: refused at once
//     (busy) while any call of the workspace runs, in any process.
//  4. revert.Select reads this session's changes journal into a
//     changes.Timeline (revert.ReadTimeline), refuses what it cannot serve
//     (revert.Refusal: an unfinished revert, a boundary before the records
//     start) and cuts it (Timeline.Cut): every step from the first one
//     the boundary (revert.After) places after the item is reverted.
//  5. Conflicts, all found before anything is written, refuse the whole
//     revert (revert.Run.ConflictError, a RevertConflictError): a record
//     it needs dropped (revert.BudgetDrops, Timeline.DroppedAfter); a file
//     another session changed in between (revert.Foreign reads the other
//     changes journals of the workspace; Timeline.Targets); a file not as
//     its last record says, or that cannot be put back (changes.Check, in
//     revert.Run.Plan).
//  6. The bytes each file gets: Timeline.Targets sets its Put to its state
//     before its first move after the cut, its Expect to its state after
//     the last; a Put known by its hash only (what an earlier revert put)
//     takes a stored state of that hash from the timeline. changes.RevertPlan
//     makes the plan (a file already holding Put is left); a preview stops.
//  7. revert.Run.Revert keeps what each file holds now (fstate.Capture,
//     for unrevert), checking again that it did not change meanwhile (a
//     hand edit: the call lock keeps out only cairn's calls), and writes
//     the revert lines (changes.RevertLines) with Session.writeChanges,
//     mode synced (sessionHost.WriteSynced).
//  8. The session's one changes.Applier, undo's and redo's too, runs the
//     plan (Applier.Apply): fstate.Put replaces each file atomically with
//     Put's content (inline, or read from objects.Store), mode and bits, or
//     removes it (Put nil); the folders are synced.
//  9. It writes the "reverted" line; for mode both,
//     Session.revertHeadLocked then moves the head (3).
//
// A revert stopped between 7 and 9 is settled by the next owner from its
// files (Session.settleReverts, revert.Run.Settle): adopted when each file
// holds what it put (the head stays, even for mode both), else unfinished,
// naming the files it missed (a new revert is refused until an unrevert or
// a new change). Session.unrevertFiles (revert.Run.Unrevert) puts back
// what step 7 kept (inline in the revert lines up to 16 MiB in all, else
// objects); one a crash stopped is finished. Tests: revert_files_test.go,
// revert_crash_test.go.
//
// ## The changes journal
//
// <id>.changes.jsonl holds a "change" line per file-tool call and the undo
// stack's events; engine/internal/changes/format.go draws every line, the
// "call" and "item" that place a line among the conversation's items, and
// a file's state F (fstate.State: an object id or inline data, its
// SHA-256, size, mode and bits). An "abort" line cancels a change whose
// file the tool did not change.
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
// Hooks and imports name items by the agent's ids: a prompt a hook
// recorded with its prompt id is item "prompt:"+ID, else an import finds it
// by text and time (engine/internal/agentimport/prompts.go); a tool call is
// "call:"+ID (agentimport.CallItem), which a hook's change record names
// before the item exists. File revert places a record by that item when
// the session holds it, else by the line's "item" (for a hook's record the
// newest item when the call began, which its marker keeps: began, hook.go;
// so too an overlap line's calls), else by its time (revert.After). The
// pre- and post-tool hooks open the session for its change records only
// (hook_open.go).
//
// ## What undo, redo and file revert put back
//
// A file a tool writes over keeps its bits; one it creates gets 0666 less
// the umask (new folders 0777 less it). Undo puts back the bits from before
// the tool, even over a hand chmod; redo the bits the undo found. A chmod
// made after an undo is a change: redo refuses to overwrite it. A file
// revert puts back each file's whole state: content, mode and bits.
//
// A file an undo or redo cannot put back (pre-image not captured, object
// missing or damaged, current content impossible to keep for redo, a failed
// write) is left as it is and named with why. One that can put back no
// file is refused (RestoreError) and uses up nothing; a restore-to goes past
// such a snapshot. One whose line was written and whose every write failed
// cancels itself with the opposite line; a cancel that cannot be written
// yet is owed and goes before any other line (until then the next file
// tool, undo, redo or restore-to is refused): no change may end the branch
// of a snapshot the files still hold. The stack's answers name the lines
// of the changes journal it cannot read (UnreadRecord), as fsck does.
//
// ## Other files
//
// engine/internal/layout names every file; each is drawn where it is
// written: tool outputs (outputs.go), attachments (attach.go), task records
// and transcripts (task.go), the background-work ledger and the inbox
// (packages bgwork, inbox), shell history (shell.go), usage.jsonl
// (usage.go), history.jsonl (history.go), config.json (config.go),
// owners/<id> (owner.go), drops.jsonl (internal/callrec/budget.go), moves
// (package migrate), repos/ (package checkouts), retention's lines, trash,
// plans and sweep stamp (retention_trim.go, retention_trash.go,
// retention_plans.go with package fileplan, retention_sweep.go). The HTTP
// API's token and credentials.json are package httpapi's.
//
// Temp files, in the state folder and beside the user's files alike, are
// named ".<name>.<pid>-<16 hex>.cairn-tmp" (the grammar of internal/vfs).
// Only a file of exactly that shape whose process is gone is ever removed:
// at each open (and when a new session is first written), in the state
// folder's folders, and in the workspace folders named by the change lines
// of a session whose owner died (temps.go).
//
// ## Durability, in full
//
// A session comes into being by one rename: its items journal is written
// whole under a temp name, with its session line and the line that made it
// worth keeping, synced, and renamed into place (a fork writes its change
// records and tool outputs first and its items journal last). A creation
// that fails leaves nothing, not even its lock file; a session this process
// made that still holds only its session line when it closes is removed.
//
// Items are appended as they come and synced once per turn: EndTurn syncs
// the items journal and the workspace folders the turn's file tools changed
// at once, so a turn that returned survives a crash. Its trail and usage
// lines are written, not synced: the turn line says all they say, an open
// puts back what a crash lost of them (matched by turn number and time),
// and Close syncs both and records "settled_turn" in the record
// (turn_settle.go). Session.Commit syncs the items journal and the trail
// between turns. The record is replaced by atomic rename when the title
// changes and otherwise at most every two seconds, without a sync (it is
// derived: a stale or empty record is rebuilt from the journal), and
// durably when the session closes. Session.RefreshRecord catches it up with
// the synced journal at once, for a runtime going idle (the REPL waiting
// for a line). Objects are durable before the line that names them is
// written.
//
// A record says which journal size it reflects ("journals":{"items":N}). An
// open rebuilds a record that differs from its journal; a listing does so
// for a session whose owner died without closing it (its owners/<id> hint
// left behind, record_stale.go) and for a record dated in the future; fsck
// notes both. A journal that holds lines and none that reads is never
// opened for writing (UnreadableError). A line dated over a minute ahead of
// the clock does not move updated_at (times.go).
//
// A file tool (write, edit, rm, apply_patch) writes its change line first,
// holding the pre-image inline (up to fstate.MaxInline, 16 KiB) or naming
// its durable object (none over config.json's snapshots max_file_bytes,
// by default 2 MiB: a file revert over it is refused). The line is synced
// while the new content is staged in a temp file beside the file and
// fsynced; only then does the temp file take the file's place (an atomic
// swap or rename): the file is always its old or its new version.
//
// New content of at most 16 KiB is in the line too ("after" inline), and
// its folder is synced at the end of the turn, once for all such edits
// (changes.Syncs). A larger file's folder is synced in the background: the
// next tool's line is synced meanwhile, and that tool waits for the sync
// only before it changes its own file; every other line of the changes
// journal waits for it before it is written.
//
// So a crash may lose swaps whose lines are durable. After a power loss
// (the machine started since the journal was last written; a killed owner
// lost nothing) the next owner makes each such change again from its line
// (settleUnsettled, changes.Stack.RedoPlan), all but the newest. The two
// newest may be unmade (the older only with the newer, which had not
// returned); loadChanges judges them newest first: one is unmade when its
// files are as its "before", or as the "before" of an unsettled change
// behind it (the same file written twice, both writes lost;
// changes.Stack.Unmade), and made otherwise. It writes an unmade one's
// abort line, and when it wrote one judges the older the same way and may
// write its abort too, unless that one can be made again from its line. It
// then syncs their folders and writes a close line, so that no later open
// looks at them again. The end of the turn writes one too once those
// folders are synced (riding with the journal's next sync), but none while
// an undo, redo or restore runs beside it, nor once a folder sync failed
// (nor does Close then). A clean Close writes one; after it nothing is
// settled. An agent's post-tool hook (SessionOptions.Brief) writes it with
// its change line (or a shell command's record line), under the line's one
// sync: the agent made the files before. A patch found with some files new
// and the rest old has the new ones put back first (patch_recover.go). An
// undo or redo a crash stopped before its files were put back is finished
// from its line.
//
// ## Locks, in full
//
// The mutexes, in the one order they may be taken: a goroutine holding one
// may take only those below it.
//
//  1. Session.busy (RWMutex): shared by a file tool, Session.Change (while
//     its function runs), a recorded call (recordCall: Exec, RecordCall,
//     while the call runs), undo, redo, restore-to and file revert;
//     exclusive by Close, so Close waits for them and none starts after it.
//  2. snapStack.mu, the undo stack (changesLog.snaps): held by the same
//     calls, so the file changes of one session take turns; and by the
//     fold on Open. A call waits for it with its context
//     (internal/ctxsync), so a cancel ends the wait.
//  3. Session.mu: the conversation state and the session's own journals
//     (items, audit), the record, closing.
//  4. Leaves, each held only briefly, never two at once: Workspace.mu
//     (making the workspace folder), changes.Writer (the changes
//     journal's writer: Close takes it without the stack's lock), the
//     shell log's mu, the task log's mu (task.go), Session.cfg.mu (reading config.json), changes.Syncs.mu
//     (the background folder syncs, which take no session lock), the
//     Store's usage-ledger lock and its registries of live shell logs and
//     tool outputs, and the picker index's own lock. One leaf takes
//     another, always in this order: a callLock's mu (the count of the
//     store's calls holding a workspace's call lock) takes its kept-open
//     lock file's own (vfs.SharedLockFile).
//
// Ownership across processes, the flock on <id>.lock, is outside this
// order: it is tried, never waited for, when a session is opened or first
// written. So is the workspace call lock, the flock on
// workspaces/<key>/calls.lock: every call (file tool, Change, shell line,
// recorded call, apply_patch) takes it shared between 1 and 2, waiting only
// while a file revert holds it; a file revert or unrevert tries it alone,
// under 2, and never waits (busy).
//
// The rule of the call lock: no call runs without it. A call whose lock
// cannot be taken for any reason but a file revert holding it (the
// workspace folder or calls.lock cannot be made, opened or locked) is
// refused (ErrRefused), naming why, and runs nothing: the lock is all that
// keeps a file revert of another session, in any process, from putting back
// files the call is changing, and a safety check never passes on "cannot
// tell". The same goes for every check a file revert makes before it
// writes: one that cannot read what it checks (the other sessions' changes
// journals, drops.jsonl) refuses it.
