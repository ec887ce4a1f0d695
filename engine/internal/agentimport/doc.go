// Package agentimport turns a session of another agent (Claude Code,
// Codex), as an importer parsed it (Source), into the lines of a cairn
// session's items journal. A source session becomes one cairn session
// whose id is derived from the agent's name and the source's own session
// id (hookrec.SessionID), so a second import finds the first without a
// search, and whose item ids are derived from the source's own keys (a
// line's uuid, or its byte offset: hookrec.ItemID), so items already
// brought in are never added twice. What the import read is kept in the
// session's meta line (Meta):
//
//	{"v":1,"kind":"meta","meta":{"import":{"agent":A,"source":ID,"path":P,"offset":N}},"at":T}
//
// offset is how many bytes of the source file were read: the next import
// reads from there. Imported items keep their source times; the lines an
// import writes after them (Tail) carry the time of the source's newest
// item.
//
// The package makes the lines (Lines, Tail) over the fold they go onto
// (convlog.State); the engine writes them: a new session whole, by one
// rename, as a fork is; an existing one by appending the new items, then
// its head and meta lines, then one sync.
//
// # Prompts the hooks recorded
//
// A hook's UserPromptSubmit writes the prompt as a user item before the
// agent's transcript holds it; importing that transcript later must find
// the item rather than add the prompt twice. The identity, in this order:
//
//   - the agent's own prompt id, when both sides carry it (Claude Code's
//     hook prompt_id, since 2.1.196, and its transcript's promptId): the
//     hook's item id is hookrec.ItemID(session, PromptKey(ID)), which the
//     import derives again from the transcript line;
//   - else the same text (what the user typed: the transcript's text
//     blocks, not its images; space around it aside) within PromptWindow
//     of the transcript line's time, the nearest such item not matched
//     yet, among the session's user items no key of the source makes
//     (hooks' items) and that the session has before what the source has
//     after the line (a prompt is recorded before its turn's answers, so
//     the same text typed again after a short turn is not taken for it).
//
// A matched line adds nothing: its key stands for the hook's item, so the
// answers and calls under it in the transcript go under that item. The
// match is made again by every import of the whole file, so it needs
// nothing on disk; a read that starts where the last one stopped (a
// hook's catch-up) is given the matches made before (Source.Prior).
//
// A hook that brings the transcript in as a prompt is submitted meets that
// prompt's own line when the agent wrote it first (Source.Pending): the
// source's last user item is the pending prompt when both carry the
// agent's prompt id and the ids are the same, or, without ids, when its
// text is the prompt's, it is at most PromptWindow from it, and it is not
// a prompt the session holds already (the previous prompt, typed the
// same: "continue" twice). That line and what follows it are left for the
// hook, which appends the prompt with its id.
package agentimport
