// Package tasks keeps the records of a session's sub-agent tasks and
// background shell jobs, and the sub-agents' transcripts: the session's
// task folder, which its owner writes and anyone reads.
//
// It knows no session: the engine names the folder, passes the session's
// ownership lock (Live checks it), decides for a reader whether a record
// without an end still runs (its owner is alive), and folds the item lines
// of a transcript (a transcript is an items journal; the engine keeps its
// fold as a Run's Shape). It imports engine/ids, engine/internal/shell (a
// shell job's command is kept as shell history keeps one), journal,
// internal/timefmt and internal/vfs.
//
// # Words
//
// Task: a sub-agent started by a "task" tool_call of the session, with a
// transcript of its own; or a background shell job, a record only. Its id
// is the slug of its label or description (package ids: lowercase ASCII
// letters, digits and hyphens, at most 64 characters, "-2", "-3" on a
// collision), unique among the records of its session; a shell job's is
// its shell label ("shell-cargo-test").
//
// Call: the tool_call item of the session that started or continued a
// task; that item names the task back ("task":ID on its line).
//
// State: "running" from its start (or continue) line until an end line;
// "settled" once its result was delivered (a tool_result answering its
// call, or an explicit end), "cancelled" when it was stopped or its
// session closed while it ran. A record still running whose owner is gone
// (the process crashed, the session was reopened) reads as "interrupted":
// its outcome is unknown, and it is never resumed or run again. A "held"
// record belongs to the session rather than to a process (the plumbing,
// one process per command, holds its tasks so): it runs until it ends. A
// settled or cancelled task can be continued by a later task call, its new
// items appended to its saved history; an interrupted one cannot.
//
// # Folder (Part of the format)
//
// tasks/<session id>/ in the workspace folder, beside the sessions:
//
//	tasks/<session id>/tasks.jsonl               the records
//	tasks/<session id>/<task id>.items.jsonl     a task's transcript
//
// The records journal holds, one per line:
//
//	{"v":1,"kind":"start","task":ID,"type":"task|shell","label":L,"cmd":C,"call":ITEM,"at":T,
//	 "background":true,"held":true,"pid":P,"owner":"o-..."}
//	{"v":1,"kind":"continue","task":ID,"call":ITEM,"at":T,"from":N,"held":true,"pid":P,"owner":"o-..."}
//	{"v":1,"kind":"end","task":ID,"state":"settled|cancelled|blocked|interrupted","at":T,"items":N,"bytes":N}
//
// A continuation keeps the id, and "from" counts the item lines the
// transcript held when it began, so a fork can take the history up to a
// continuation it does not keep. An end line counts the transcript's item
// lines and payload bytes.
//
// A transcript is an items journal of its own: a header line, then item
// lines exactly as a session's (parents, payload objects over 16 KiB,
// attachments), and the repair line of a torn tail cut (package journal):
//
//	{"v":1,"kind":"task","task":ID,"session":SID,"at":T}
//	{"v":1,"kind":"item","id":"i-...","parent":"i-..."|absent,"type":TYPE,"at":T,"text":"..."}
//
// The records and the transcript are written before the call item that
// names them (data before the line that names it). The records journal is
// synced line by line; a transcript is synced when its task ends, on
// Run.Sync and when the session closes.
//
// Opening a session never reads these files. A fork copies the records and
// transcripts of the tasks whose calls its path keeps (Copy).
//
// # Locks
//
// A Log is its owner's writer: Log.mu guards every field of the Log and
// of its Runs (the records writer, the running runs, each run's
// transcript writer, counts, Shape and end). It is a leaf but for what a
// Run.Append's callbacks do while it is held (the engine stores the item's
// attachments and payload there). Reading (Read) takes no lock: it reads
// complete lines.
package tasks
