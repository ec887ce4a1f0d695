// Package hookmark holds the pending markers an agent's hooks leave
// between a pre-tool and a post-tool hook: Change for a file edit, Exec
// for a shell command. Both are part of the format.
//
// # A file edit
//
// Hooks: cairn under another agent (Claude Code, Codex), which runs one
// cairn process per event. The agent's session maps to one cairn session,
// whose id is ImportSessionID(agent, the agent's id), so hooks and
// `cairn import` land in the same session. A file edit is split across
// two processes: the agent's pre-tool hook captures the pre-images
// (Session.BeginChange) and leaves a pending marker; its post-tool hook
// records the after states and writes the change line (Session.SettleChange),
// or nothing when no file changed. The marker, part of the format:
//
//	workspaces/<key>/hooks/<session>/<call>.json
//	{"v":1,"tool":T,"call":ITEM,"item":ITEM,"at":TIME,"files":[{"path","before":F}],"skipped":[P...],"off":BOOL,
//	 "unit":UID,"seq":N,"seen":[P...],"ended":BOOL,"rec":SNAP}
//
// <call> is the agent's tool-call id (or, when it is not a plain name, 32
// hex digits of its SHA-256). "before" names its object by "oid" (stored
// durably before the marker is written); "off" says snapshots were off, so
// nothing was captured. A marker older than a day (the agent died between
// the two hooks) is removed by the next BeginChange or BeginExec of the
// session. "unit" and the fields after it say which unit of calls running
// at the same time the call belongs to (engine/overlap.go); a marker "ended"
// stays after its post-tool hook until its unit ends. A shell command's
// marker says "kind":"exec" and has its walk beside it (Exec);
// SettleChange settles either kind. A forget moves the session's markers
// with it (engine/retention_trash.go). Beside them, transcript.read is how far
// the hooks read the agent's transcript (AgentMark): a cache of the
// importer's, never a marker.
//
// # A shell command
//
// A shell command of an agent (Claude Code's Bash, Codex's shell) under
// hooks: recorded as `cairn tool exec` records a line (engine/callrec.go), by the
// same scope rules, but across two processes. The pre-tool hook
// (BeginExec) decides the scope, walks it and stores every file it covers,
// and leaves an exec marker and the walk beside it; it writes no call
// line, since one left open between the two processes would be closed as
// interrupted by the next Open. The post-tool hook (SettleChange) walks
// again and writes the call line and its record line together, through
// recordAfter, so snapshots, file revert and its conflict checks read
// them as any exec record. Like those, they are not undo snapshots (seed
// 001: undo covers the file tools). Part of the format:
//
//	workspaces/<key>/hooks/<session>/<call>.json
//	{"v":1,"kind":"exec","tool":T,"call":ITEM,"item":ITEM,"id":SNAP,"at":TIME,"scope":"paths"|"workspace","paths":[P...],
//	 "tree":{"sha256":H,"entries":N},"unit":UID,"seq":N,"seen":[P...],"ended":BOOL}
//	workspaces/<key>/hooks/<session>/<call>.tree
//
// "id", "item" and "at" are the call line's, written at the post-tool hook;
// "tree" names the walk before the call, kept in <call>.tree
// (engine/internal/scope/tree_file.go) by its SHA-256, so a marker whose
// walk is missing or torn is never read with another. Every object the
// walk names is stored durably before the walk and the marker are written
// (neither is synced: a crash loses the record of this command, never
// the data of one). A line that only reads leaves no marker; a record
// the store refuses (recording off, a limit, a full store) writes its
// unrecorded line at once and leaves none either. An exec marker older
// than a day (its agent died between the hooks) is removed by the next
// hook of the session with an unrecorded line, why "interrupted": the
// command may have changed files no record holds.
package hookmark
