// Package inbox is a live session's inbox: messages other sessions and
// scripts on the machine send it (cross-session messaging), kept in one
// append-only journal per session that every sender appends to without a
// lock, and that the session's owner folds and delivers from, once each
// and in order, as items of its conversation.
//
// It knows no session: the engine names the inbox and the session's lock
// file, checks the experimental switch, and gives the receiver its
// conversation as a Sink. It imports journal, internal/timefmt and
// internal/vfs.
//
// # Journal (Part of the format)
//
// tasks/<session id>/inbox.jsonl in the workspace folder, beside the
// session's background work (the engine's choice of name: the folder
// goes with the session when it is moved or deleted), one line per event,
// each with "v":1 first and "kind" second:
//
//	{"v":1,"kind":"msg","id":"m-<16 hex>","from":"<session id>","text":"...","at":T}
//	{"v":1,"kind":"take","msg":"m-...","item":"i-...","at":T}
//	{"v":1,"kind":"taken","msg":"m-...","at":T}
//
// A sender writes "msg" ("from" absent for a script). The receiver writes
// "take", reserving the id of the item that will deliver the message, and
// "taken" once that item is durable in its conversation. A message whose
// id was seen before, and a take or taken that names no message or comes
// twice, is skipped.
//
// # Appending without a lock
//
// Every writer, sender or receiver, opens the file with O_APPEND and
// writes each line, "\n" included, with one write call, then syncs it. On
// a local filesystem the kernel places each such write at the end of the
// file whole, so lines from different processes never interleave. No
// writer ever truncates the file: a torn line (a writer killed in the
// middle of a large write, or a power loss) stays, and the next line is
// appended after it. A reader takes a line up to its "\n"; when it is not
// one JSON object, it reads it from the last `{"v":1,"kind":"` in it, the
// start of the complete line a later writer glued to the torn part (that
// run of bytes cannot occur inside a line: every '"' in a string is
// escaped). A final run without "\n" is read again once it has one.
//
// # Liveness
//
// A receiver is live while a process owns its session, which it shows by
// holding the session's lock file (engine/owner.go). A sender tests the
// lock by taking it for a moment (Live). A message to a session that is
// not live is refused (ErrNotLive), or, when the sender asks for it, kept
// and said to be queued: the session delivers it when it is next opened.
// A message accepted while the receiver was live is delivered by it, or,
// if it closes first, when the session is next opened; it is never lost.
//
// # Ordering
//
// Messages are delivered in the order of their lines, exactly once,
// across a kill -9 of the receiver:
//
//  1. A msg line is synced before Send returns: a sent message is kept.
//  2. A take line, with the item id it reserves, is synced before the
//     item is put, so a crash can never leave an item whose id a later
//     take would not name.
//  3. The item is put and synced (Sink.Put, Sink.Sync) before the taken
//     line is written.
//  4. A message taken but not marked taken is in doubt: the receiver asks
//     its conversation (Sink.Has) before it puts the item, and only puts
//     one it does not hold.
//  5. A Put or Sync that failed is never taken as done: nothing more is
//     delivered until the inbox is opened again.
package inbox
