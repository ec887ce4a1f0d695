// Package history keeps the prompt history, history.jsonl at the top of
// the state folder, shared by every directory: one line per prompt, oldest
// first.
//
// # The file
//
// Consecutive duplicates collapse into one; a cancelled prompt is removed
// again; the file is capped (history.max in config.json) and rewritten
// whole, by atomic rename, when it grows past the cap by a tenth. A
// corrupt file reads as empty history, never as an error. Part of the
// format:
//
//	{"v":1,"kind":"prompt","at":T,"text":PROMPT,"path":DIR}
//	{"v":1,"kind":"cancel","at":T,"text":PROMPT}
//
// "path" is the directory the prompt was typed in (absent when unknown). A
// "cancel" line takes back the newest prompt when its text is PROMPT.
//
// # Locks
//
// Log.mu guards what Add last read of the file (size, count, last) and
// serializes the writes of one process; other processes append lines of
// their own, which a reader takes as they come. It imports journal,
// internal/timefmt and internal/vfs.
package history
