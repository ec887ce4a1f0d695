// Package engine is cairn's storage engine for coding-agent sessions: a
// Store (one state folder) holds Workspaces (one per canonical directory),
// and each workspace holds Sessions.
//
// # Words
//
//   - state folder: $CAIRN_HOME or ~/.cairn, created 0700 (files 0600), with a
//     FORMAT file; a newer format is refused.
//   - workspace: a canonical directory and its folder workspaces/<key>, the
//     key a reversible encoding of the path (package wskey).
//   - session: a conversation in one workspace, named by a version 4 UUID.
//   - item: one entry of the conversation (user, assistant, reasoning,
//     tool_call, tool_result, compaction), linked to its parent.
//   - head: the item that ends the active path; moving it deletes nothing.
//   - journal: an append-only JSONL file; the journals are the truth.
//   - record: <id>.json, the summary the picker shows and a resume needs,
//     derived from the journals and rebuilt when missing, unreadable or
//     older than them.
//   - trail: <id>.audit.jsonl, a line a turn, labels and gate names only.
//   - owner: the process holding the flock on <id>.lock.
//
// # The items journal
//
// <id>.items.jsonl starts with a "session" line and holds, one per line:
//
//	{"v":1,"kind":"session","session":ID,"path":DIR,"at":T,"build":B}
//	{"v":1,"kind":"item","id":"i-...","parent":"i-..."|absent,"type":"user","at":T,"text":"..."}
//	{"v":1,"kind":"item",...,"payload":{"oid":SHA256,"size":N}}   text over 16 KiB, as an object
//	{"v":1,"kind":"item",...,"quarantined":true,"slot":NAME}       never the content
//	{"v":1,"kind":"head","to":"i-...","why":"revert|unrevert|fork"}
//	{"v":1,"kind":"title","title":"...","source":"prompt|generated|user"}
//	{"v":1,"kind":"turn","turn":{"n":N,"plan":...,"spend":{...},"trust":{...},"allowed_commands":[...],"branch":B}}
//	{"v":1,"kind":"open","at":T,"branch":B,"build":B,"pid":P}
//	{"v":1,"kind":"repair","cut":N}                                a torn tail was cut
//
// # The changes journal
//
// <id>.changes.jsonl holds a "change" line per file-tool call and the undo
// stack's events (changes_format.go draws every line). A file's state F is
// {"oid":SHA256,"size":N,"mode":"file|exec|link"} (stored as an object),
// {"sha256":SHA256,"size":N,"mode":...,"data":BASE64} (a pre-image of at
// most 16 KiB, inline), {"sha256":SHA256,"size":N,"mode":...} (the
// content's hash only, no object: a change's "after"),
// {"skipped":REASON,"size":N}, or null (absent). "oid" always names an
// object that exists. An "abort" line cancels a change whose file the tool
// did not change.
//
// # Other files
//
// Each is drawn in the file that writes it: tool outputs
// (outputs/<session>/<output id>.zst, outputs.go), shell history
// (<id>.shell.jsonl, shell.go), the usage ledger (usage.jsonl, usage.go),
// prompt history (history.jsonl, history.go), config.json (config.go), the
// gateway token and paired credentials (gateway.token, credentials.json,
// creds.go), and ownership hints (owners/<id>, owner.go).
//
// # Durability
//
// Items are appended as they come and synced once per turn: EndTurn (or
// Commit) syncs the items journal, the trail, the turn's usage line and
// the workspace folders the turn's file tools changed at once, so a turn
// that returned survives a crash. Session.Commit does the same between
// turns. The record is replaced by atomic rename when the title changes
// and otherwise at most every two seconds, without a sync (it is derived:
// a stale or empty record is rebuilt from the journal), and durably when
// the session closes. Objects are durable before the line that names them
// is written.
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
// A file tool (write, edit, rm) writes its change line first: the line,
// holding the pre-image inline or naming its durable object, is synced
// while the new content is staged in a temp file beside the file and
// fsynced; only then does the temp file take the file's place (an atomic
// swap or rename). So the pre-image is durable before the file changes,
// and the file is always its old or its new version. The folder is synced
// in the background; the next line of the changes journal waits for it, so
// a crash can leave only the newest change unmade, with its file still as
// "before": the next owner finds it so and writes an abort line. An undo or
// redo a crash stopped before its files were put back is finished by the
// next owner from its line. A clean Close writes a close line, after which
// nothing is settled.
//
// # Degrading
//
// With SessionOptions.Degrade, a session that cannot be written (a full
// disk, a missing home) keeps running in memory and says so once.
package engine
