// Package importer reads other agents' session histories — Claude Code's
// project transcripts and Codex's rollout files — into engine.ImportSource
// values, which Workspace.Import brings into cairn. It only reads: the
// source files are never written.
//
// # Accounting
//
// Every complete line of a source is accounted for in Stats: it made items
// (Items, by cairn item type), was merged into the item of an earlier line
// (an assistant message that Claude Code split into one line per content
// block), or was left out and counted by its kind (Skipped, keyed
// "type" or "type/subtype": progress lines, file-history snapshots,
// duplicates of lines already imported, …). A line that is not JSON is
// counted as "invalid"; a last line without its newline (a torn tail, the
// agent still writing or killed mid-write) is not read, and Torn says how
// many bytes were left for the next import. Nothing is a failure but an
// unreadable file.
//
// # Keys
//
// Items are keyed so that importing the same file again yields the same
// keys: Claude Code's lines by their uuid (a line that makes several items
// keys the earlier ones "<uuid>#<n>"), Codex's by byte offset. The engine
// derives item ids from the keys, so a second import adds only what is new.
// A user prompt also carries what the engine needs to find the same prompt
// when an agent's hooks recorded it first (engine/import_prompts.go): its
// typed text (a Claude Code prompt's text blocks, without the bracketed
// names of images) and Claude Code's promptId.
package importer
