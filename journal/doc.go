// Package journal keeps cairn's append-only JSONL files: the items of a
// session, its change records, its trail, the prompt history and the usage
// ledger. A journal is the truth; every other file is derived from journals.
//
// # Journal
//
// A journal is a file of lines. Each line is one JSON object carrying "v":1,
// ends in "\n", and is written with a single write call by the one Writer
// that owns the file. Lines are only ever appended; a line already in the file
// is never rewritten.
//
//	{"v":1,"kind":"item","id":"i-1","parent":null,"type":"user","at":"2026-11-29T09:12:03.120Z","text":"hi"}\n
//	{"v":1,"kind":"item","id":"i-2","parent":"i-1","type":"assistant","at":"2026-11-29T09:12:04.007Z","text":"hello"}\n
//
// # Complete line, bad line, torn tail
//
// A complete line is a run of bytes ended by "\n". A reader (Scan, Read,
// ReadFrom, Follow) hands every complete line that holds a JSON object to its
// callback. A complete line that is not a JSON object, or is longer than the
// line cap, is a bad line: readers skip it and count it in Stats.Bad with its
// line number and offset, so `cairn storage fsck` can report it. A bad line
// is never rewritten or removed.
//
// A torn tail is what follows the last "\n": the part of a line whose write
// was cut short by a crash, a full disk or an I/O error. It is the expected
// shape of a crash, not corruption. Readers ignore it (Stats.Torn says how many
// bytes it has).
//
// # Repair line
//
// OpenWriter cuts a torn tail before it appends anything: it truncates the file
// to the end of its last complete line, syncs it, then appends and syncs
//
//	{"v":1,"kind":"repair","at":"<RFC 3339 UTC with ms>","cut":N}
//
// where N is the number of bytes cut. Readers that rebuild state from a journal
// skip lines of kind "repair" (KindRepair).
//
// If a crash falls between the truncation and the repair line, the cut is
// durable but not recorded; the journal still reads up to its last complete
// line.
//
// # Line cap
//
// A line, without its "\n", holds at most MaxLine bytes (16 MiB unless
// Options.MaxLine says otherwise). A Writer refuses a longer one with
// ErrLineTooLong; a reader counts a longer one as a bad line and reads on with
// bounded memory.
//
// # Durability
//
// Under SyncEvery, an Append that returned nil is on disk. Under SyncManual, the
// lines appended before a Sync that returned nil are on disk; the engine syncs
// once per turn. A line that was not synced may be lost in a power loss, or
// survive only as a torn tail; it never shows up as a different complete line.
//
// A failed write or fsync is reported and never retried as if it had worked:
// after one, the Writer is broken, and every later Append and Sync returns
// ErrBroken wrapping the first error. A failed write may have put part of a line
// in the file; that part is a torn tail, which the next OpenWriter cuts. Open a
// new Writer to go on.
//
// # Shared journals
//
// A journal that several processes append to (the usage ledger) is opened
// with Options.Exclusive: the Writer holds an exclusive lock on the file from
// before it looks for a torn tail until Unlock (once its lines are written) or
// Close, and every writer of it does the same, so a line another process is
// writing is never taken for a torn tail.
package journal
