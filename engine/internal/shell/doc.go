// Package shell keeps a session's shell history: the foreground shell
// commands it ran, each recorded before it runs and again when it
// settles, in one journal the session's owner writes and anyone reads.
//
// It knows no session: the engine names the journal, passes the
// session's ownership lock (Live checks it), and decides for a reader
// whether a command without an end still runs (its owner is alive). It
// imports engine/ids, journal, internal/timefmt and internal/vfs.
//
// # Words
//
// Run: one command, named by its run id, a shell label (ids.ShellLabel,
// "shell-cargo-test") made unique among the ids the journal holds and
// those a rewrite dropped ("shell-cargo-test-2").
//
// Running, finished, interrupted: a run with an end line is finished. One
// without is running while the process that wrote its start line (its pid
// and owner token) still owns the session, and interrupted otherwise:
// after a crash, or once the session was closed or reopened. Its outcome
// is unknown and it is never run again. A finished or interrupted run is
// settled.
//
// # Journal (Part of the format)
//
// <id>.shell.jsonl in the sessions folder (the engine's choice of name),
// each command written twice:
//
//	{"v":1,"kind":"start","run":"shell-cargo-test","at":T,"cmd":"cargo test","pid":P,"owner":"o-..."}
//	{"v":1,"kind":"end","run":"shell-cargo-test","at":T,"exit":0,"stdout":"...","stderr":"...","stdout_cut":N,"stderr_cut":N,"cancelled":true?}
//
// The start line is written and synced before the command may run; a
// runtime that cannot record it must not run the command. The end line
// keeps the last KeepBytes of each stream; *_cut counts the bytes cut
// from the front (a cut never splits a UTF-8 sequence; bytes that are not
// UTF-8 read back as U+FFFD). A command is the "cmd" text, cut the same
// way (its first KeepBytes kept, "cmd_cut" the rest). Retention's trim
// drops an end line's streams and marks it "trimmed":true.
//
// The journal is bounded: when the owner has written more than CompactAt
// settled commands, it rewrites the file by atomic rename with the newest
// Keep settled ones (by when they settled) and the running ones. A
// rewrite writes first
//
//	{"v":1,"kind":"taken","runs":{"shell-cargo-test":57,"shell":3}}
//
// with, per label, the highest suffix of a dropped run (1 for the bare
// label), merged with the taken line before it, so a dropped run's id is
// never given to a later command. Shell history is not copied into forks.
//
// # Locks
//
// A Log is its owner's writer: Log.mu guards every field of the Log and
// of its Runs (the writer, the counts, the ids taken and running, closed).
// It is a leaf: nothing else is locked while it is held. Reading (Read,
// Newest) takes no lock: it reads complete lines.
package shell
