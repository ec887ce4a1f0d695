// Package index keeps the picker index of a workspace: a cache of what each
// session record says, so listing sessions reads one file and stats the
// records instead of parsing every one.
//
// # Words
//
// A record is a session's summary file, sessions/<id>.json in the workspace
// folder, where <id> is a version 4 UUID; the engine writes it whole by atomic
// rename. An entry is what the index keeps of one record: the fields the
// picker shows and sorts on. A stat key is (size, modification time in
// nanoseconds, inode number where the platform has one) of a record file; an
// entry is reused while its record's stat key is unchanged, and the record is
// parsed again as soon as it changes. Every Refresh stats every record it
// lists, so a record another program rewrote in place is seen too; only the
// listing of the sessions folder is skipped while the folder's own time
// vouches for it. A problem is a record that could not be
// read or parsed: it is left out of the entries and named in Problems, and
// never stops the listing of its neighbours.
//
// # The index file
//
// index.json sits in the workspace folder. It is derived and never the truth:
// deleting it, or any corruption of it, only costs one full rebuild, and a
// file of another version is treated as missing. It is replaced whole by
// atomic rename, and only when the listing changed. Format (one entry a line,
// entries sorted newest updated_at first, ties by id; empty strings, zero
// counts, false and zero times are left out; "count" is the number of
// entries):
//
//	{"v":1,"count":N,"entries":[
//	{"id":"<uuid>","title":"...","title_source":"prompt|generated|user",
//	 "created_at":"<RFC 3339 UTC ms>","updated_at":"...","opened_at":"...",
//	 "items":N,"bytes":N,"branch":"...","tier":"full|transcript","pinned":true,
//	 "fork_of":"<uuid>","path":"/abs/workspace","remote":"host:/path","journal":N,
//	 "stat":{"size":N,"mtime_ns":N,"ino":N}}
//	],"problems":[
//	{"name":"sessions/<uuid>.json","err":"...","stat":{...}}
//	],"folder":{"size":N,"mtime_ns":N,"ino":N},"listed_ns":N,"unrecorded":["<uuid>",...]}
//
// "folder" is the sessions folder's stat key when it was last listed, at
// "listed_ns" (wall clock, nanoseconds); a listing is reused only while the
// folder's key is the same and was taken well after its last change.
// "unrecorded" names the sessions that listing found with an items journal
// and no record. "journal" is the size of the items journal the record says
// it reflects (its "journals":{"items":N}): the engine compares it with the
// journal's, and an entry without it (an earlier build's file) has its
// record read again.
//
// The first line holds the version and the count, and the entries follow
// newest first, so the picker's first page is the start of the file: Head
// reads only that much, for a first screen drawn before a Refresh has
// verified anything. A file without the count (an earlier build's) is read
// by Refresh and written again with it.
//
// Refresh reads a file as cairn writes it a block at a time, each entry
// line in the writer's own field order, keeping only the strings of each
// entry; any other layout (a file edited by hand) is read whole by a
// general JSON scanner, to the same cache. When the file's end says its
// listing of the sessions folder is still trusted, the records are stat'ed
// on other threads while the entries are read.
//
// Problems that come from a record's content are cached like entries, so a
// corrupt record is not parsed again until it changes; a failure to read a
// record (an I/O error) is not cached and is retried at the next Refresh.
//
// # What a record must say
//
// The index decodes only the fields above, leniently: a record must be a JSON
// object, its "v" (when present) must be 1 and its "id" (when present) must be
// the id in its file name; a field of an unexpected type or a time that does
// not parse is read as empty. The counts are read from "counts":{"items":N,
// "bytes":N}, or from top-level "items" and "bytes" numbers.
package index
