// Package convlog is a session's conversation log below the engine: the
// types of its format (Item, Line, Draft, Spend, Trust, TurnState; the
// engine's public names are aliases of them), the fold of the items
// journal into a State (State.Fold, Read on every core, ReadLean and
// Stream for a session over the eager-load ceiling), the queries over the
// tree (HeadPath, PathTo, Boundary, ForkPath, RequestView,
// CompactStretch), the lines of a fork's journal (ForkLines), payload
// objects (WritePayload, ReadPayload, UnavailableOf), the record file
// (WriteRecord), and what Degrade mode keeps to come back from a failed
// write (Kept, Degraded): the lines of one journal (the items journal,
// the trail) held in memory until they are durable, and the cut-back-and-
// reopen of a journal whose writer broke or whose sync failed.
//
// Words:
//   - state: the conversation folded from its journal: the item tree, the
//     head, the standing state the record summarises.
//   - head path: the items from the root to the head, oldest first.
//   - synced: the journal's size at its last good sync; what lies past it
//     may be lost by a crash even though it reads back.
//   - written: lines appended since that sync, kept so that they can be
//     written again when a sync fails (a failed fsync is never taken as
//     done).
//   - waiting: lines not written at all, because the session was
//     unrecorded when they came; they are written, in order, once writes
//     work again.
//
// The engine's convLog (engine/conv.go) holds one State, the writers of
// the items journal and the trail, and one Degraded.
//
// Locks: none here. A State, a Kept and a Degraded belong to one session
// and are guarded by the lock that guards it (Session.mu); a State a
// reader folded (a View) is its own. Read, ReadLean and Stream read
// complete journal lines only and need no lock.
//
// Formats: the conversation's files are drawn here, for the engine that
// writes them (engine/conv.go and the files it names). Part of the format:
// a reader of the state folder relies on every line below.
//
// # The items journal
//
// <id>.items.jsonl starts with a "session" line and holds, one per line
// (Line; a field left out is empty):
//
//	{"v":1,"kind":"session","session":ID,"path":DIR,"at":T,"build":B,"branch":B,"fork_of":{"session":ID,"item":"i-...","n":N}}
//	{"v":1,"kind":"item","id":"i-...","parent":"i-..."|absent,"type":TYPE,"at":T,"text":"..."}
//	{"v":1,"kind":"item",...,"payload":{"oid":SHA256,"size":N}}   text over 16 KiB, as an object
//	{"v":1,"kind":"item",...,"quarantined":true,"slot":NAME}       never the content
//	{"v":1,"kind":"item",...,"type":"tool_call","tool":NAME}
//	{"v":1,"kind":"item",...,"type":"tool_call","tool":"task","task":TASK ID}   a sub-agent's call (engine/task.go)
//	{"v":1,"kind":"item",...,"attachments":[{"oid","name","media_type","size"}|{"name","media_type","live_only":true,"url","pages"}]}   (package attach)
//	{"v":1,"kind":"item",...,"type":"tool_result","call":"i-...","status":"unavailable"|absent,"outputs":[OUTPUT ID,...]}
//	{"v":1,"kind":"item",...,"type":"compaction","replaces":["i-...",...]}
//	{"v":1,"kind":"head","to":"i-..."|"","why":"revert|unrevert|fork","at":T}
//	{"v":1,"kind":"title","title":"...","source":"prompt|generated|user","at":T}
//	{"v":1,"kind":"turn","at":T,"turn":{"n":N,"plan":...,"model":M,"spend":{"input_tokens":N,"output_tokens":N,"cost_usd":X},
//	                                  "trust":{"map":{...},"rules":[{"path","rule"}]},"allowed_commands":[...],"branch":B,"build":B,
//	                                  "labels":[...],"gates":[...],"usage":true}}   what the turn's trail and usage lines say
//	{"v":1,"kind":"open","at":T,"branch":B,"build":B,"pid":P}   each Open but a Brief one (an agent's hook)
//	{"v":1,"kind":"meta","at":T,"meta":{"pinned":true,"tier":"full|transcript",KEY:VALUE,...}}   settings; a fork copies them
//	{"v":1,"kind":"draft","at":T,"text":"..."|"payload":{...},"attachments":[...]}   the composer's text (DraftLine)
//	{"v":1,"kind":"repair","at":T,"cut":N}                          a torn tail was cut (package journal)
//	{"v":1,"kind":"moved","at":T,"from":DIR,"to":DIR}              the session moved here (engine/migrate.go)
//
// TYPE is user, assistant, reasoning, tool_call, tool_result or compaction.
// A tool_result's "call" names a tool_call on its own path (State.CheckLinks);
// "status":"unavailable" marks the result a fork supplies for a call that
// did not complete. "outputs" name the session's stored tool outputs.
//
// # The record
//
// <id>.json, written whole (engine/record.go's Record):
//
//	{"v":1,"id":ID,"path":DIR,"title":"...","title_source":"prompt|generated|user",
//	 "created_at":T,"updated_at":T,"opened_at":T|null,"head":"i-..."|"","branch":B,"build":B,
//	 "model":M|absent,"plan":...|null,"spend":{...},"trust":{...}|null,"allowed_commands":[...],
//	 "fork_of":{"session","item","n"}|null,"tier":"full|transcript","pinned":false,
//	 "counts":{"items":N,"turns":N,"bytes":N},"pending_revert":...|absent,
//	 "draft":{"text":"..."}|{"payload":{...}}|absent,"journals":{"items":N},
//	 "settled_turn":N|absent}
//
// # The trail and the usage ledger
//
// <id>.audit.jsonl, one line a turn and one per audited event (engine/audit.go):
//
//	{"v":1,"kind":"turn","at":T,"session":ID,"turn":N,"items":N,"labels":[...],"gates":[...]}
//	{"v":1,"kind":"event","at":T,"session":ID,"event":NAME,"outcome":"ok|denied|refused|failed","action":A,
//	                     "steps":[{"id","restored","removed","skipped","unchanged"?}],"files":N,"rule":R}
//
// usage.jsonl at the top of the state folder, one line per turn that spent
// anything or named a model (engine/usage.go):
//
//	{"v":1,"kind":"usage","at":T,"path":DIR,"session":ID,"model":M,"input_tokens":N,"output_tokens":N,"cost_usd":X,"ephemeral":true|absent}
//
// # Degrading
//
// With SessionOptions.Degrade, a session that cannot be written (a full
// disk, a missing home) keeps running in memory and says so once. Open of a
// session whose lock cannot be taken for any reason but another owner (a
// read-only state folder) opens it read-only the same way: loaded, never
// written (engine/session_readonly.go). A degraded session that owns its files keeps
// the journal lines it could not write, and every later write tries again:
// once one works, the kept lines are written in their order (long texts as
// payload objects) and synced, and the session says it is recorded again.
// A journal whose fsync failed is first cut back to its last good sync and
// the lines since are written again, so a failed fsync is never taken as
// done. A long text whose payload object cannot be stored is kept the same
// way, and written as a payload later. A session that closes still
// unrecorded says how many items may be lost. The usage ledger is the
// store's: a usage line it cannot take is said, and leaves the session
// recorded.
//
// # Unavailable items
//
// An item whose payload object cannot be read back (missing, corrupt, an
// I/O error) loads with an empty text and Item.Unavailable saying which
// object and why ("unavailable":{"oid":...,"size":N,"reason":"missing|
// corrupt|unreadable","error":"..."} in JSON); the rest of the session
// loads and works, and Open tells SessionOptions.Notice once. Nothing
// rewrites the item's line, so putting the object file back brings the
// text back. Fsck names every journal line that refers to a missing or
// corrupt object.
package convlog
