// Package objects is cairn's content-addressed object store: a folder of
// files, each named by the SHA-256 of its content, written once and never
// changed.
//
// # Object
//
// An object is a byte string: a file's pre-image, a large item payload. It is
// named by its ID (also called its oid), the SHA-256 of its uncompressed
// content, written as 64 lowercase hex digits. Two equal contents are one
// object, stored once.
//
// # Layout
//
// A Store lives in one folder of a vfs.FS (a workspace's "objects"):
//
//	objects/
//	  <2 hex>/                 a shard: the first two hex digits of the ID
//	    <62 hex>               raw: the content as it is
//	    <62 hex>.zst           compressed: one zstd frame of the content
//	  .put.<pid>-<16 hex>.cairn-tmp   a temp file of a Put in progress, or
//	                                  left by a crash (vfs.TempName)
//
// An object is stored compressed when that saves at least one eighth: the
// frame is no larger than 7/8 of the content (Compressible). Otherwise it is
// stored raw. Either way a person can check it with the usual tools:
//
//	zstd -dc objects/ab/cdef....zst | sha256sum    # prints abcdef...
//	sha256sum objects/ab/cdef...                   # prints abcdef...
//
// The zstd frame carries a content checksum, and its content size when the
// size was known before compressing (always for contents up to 1 MiB).
// Folders are created 0700, files 0600. A dot file is never an object: Walk
// skips it. Put's temp files carry its pid (the temp grammar of vfs), and
// vfs.SweepTemps on the store folder collects the ones whose writer is gone.
//
// # Writing
//
// Put streams the content into a temp file in the store folder while hashing
// it, syncs the file, renames it into its shard and syncs the shard folder
// (and the store folder when the shard folder is new, and each parent of a
// store folder Put had to create). When Put returns, the object is durable.
// An object that exists already is not written again: Put reports
// Info.Existed. Two writers of the same content at once both succeed; the
// second rename replaces the file with the same content.
//
// An object that exists is taken as durable, and Put does not sync its
// folder again, except one this Store renamed into place and has not seen
// its folder sync succeed since (a Put still under way in another
// goroutine, or one whose folder sync failed): Put writes that one again,
// and its own rename and folder sync make it durable. A failed folder sync
// is not retried as if it had worked.
//
// A failed folder sync never removes the object: another process may have
// stored the same content under that name, and a journal may name it
// already. An object is removed only by Remove, which a caller uses only
// once no journal refers to it.
//
// What a Store cannot know is another process's unfinished or failed
// folder sync: a writer killed between its rename and its folder sync, or
// whose folder sync failed, then a power loss before anything syncs that
// folder, can lose an entry another process took as stored.
//
// A Batch stores many objects with one point of durability (a record's
// walk stores every file it reads): its Puts write their temp files
// without a sync; every 256 files held, and at Commit, it syncs their
// data together (vfs.SyncFS, syncfs(2) on Linux, or each file's sync from
// a small pool), creates the missing shard folders with one sync of the
// store folder and renames each file into its shard; Commit then syncs
// each shard folder the batch renamed into once. The order is
// Put's (data durable before its name appears), so a crash at any point
// leaves every object whole or absent; the objects are durable when
// Commit returns, and the line that names them is written after it.
//
// PutStored stores an object from its stored form as another store keeps
// it (a copy fetched from a remote): the bytes go to disk as they came,
// decoded and hashed on the way, not compressed again; a form that does
// not hash to the object's name is refused and nothing is left under it.
// It commits as Put does, and a Batch has it too.
//
// Put holds a few MiB whatever the content's size. A content of
// up to 1 MiB is compressed in memory and the rule above decided exactly. For
// a larger one the first MiB decides whether to stream it compressed or raw;
// a compressed stream that misses the rule in the end is converted to raw,
// so a .zst object always saves an eighth. (A large content whose first MiB
// does not compress is stored raw even if the rest would.)
//
// # Reading
//
// Get always verifies: its reader hashes what it returns and, at the end,
// returns an error wrapping ErrMismatch instead of io.EOF when the content
// does not hash to the ID. A .zst file that cannot be decoded is a mismatch
// too. A caller that reads to io.EOF has therefore read exactly the object.
//
// # Walking
//
// Walk visits every object in order of ID. A file or folder in the store that
// is neither an object, a shard nor a temp file is a problem: Walk goes on,
// and returns the problems at the end, each a *ProblemError (see Problems).
package objects
