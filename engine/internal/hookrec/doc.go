// Package hookrec keeps what an agent's prompt hook needs to record a
// prompt without reading the whole session: the hooks run one process per
// event, many a turn, and a long session's items journal is tens of
// megabytes, its agent's transcript more. Two derived files, in the
// session's hooks folder (hooks/<id>/), both caches:
//
//   - transcript.read, how far the hooks read the agent's transcript
//     (the importer's read state, kept as batches appended one per
//     catch-up: AppendMark);
//   - items.idx, the session's conversation without its texts (Index): a
//     prompt hook opens the session from it and from what the items
//     journal gained since, not from the whole journal.
//
// # The index
//
// items.idx is plain text, appended to, one line each:
//
//	i ID TYPE PARENT CALL TASK [TEXT]    an item (TEXT, Go-quoted, on user items only)
//	{"v":1,"size":N,"sum":S,"state":{...}}   the end of a batch
//
// A batch is some item lines and the JSON line that ends it: the index
// holds the items journal's first N bytes, and "state" is the rest of the
// fold of those bytes (the session's summary, as the engine keeps it;
// opaque here). S is the SHA-256 of N and of the journal's first and last
// 4 KiB before N. What follows the last JSON line (a batch a crash cut
// short) is not read, and the next batch is written in its place.
//
// The index is derived: it is never synced, and is read only when it
// agrees with the journal (Check). It is behind when the journal is
// longer than N and its first N bytes still sum to S: the lines after N
// (written by an open of the whole session: a turn's end, the REPL) are
// folded onto it, and the next batch holds them. It is rebuilt from the
// whole journal when it is missing, unreadable, or does not agree (the
// journal is shorter than N, or was rewritten: its bytes no longer sum to
// S).
//
// # Ids
//
// SessionID and ItemID derive an agent session's cairn id and its items'
// ids from the agent's own, so a hook and an import name them alike.
package hookrec
