// Package vfs is the one filesystem seam of cairn: every file cairn reads or
// writes goes through an FS, so tests can swap the disk for a filesystem that
// loses power or fails on purpose.
//
// # Words
//
// FS: a tree of files rooted at one folder, named by slash-separated relative
// names ("sessions/abc.json", "." for the folder itself). A name that is
// absolute, climbs out with "..", or leads outside through a symbolic link is
// refused, so nothing outside the folder is ever read or written.
//
// Durable: what a crash cannot take away. A file's data is durable as of its
// last File.Sync; a folder's entries (its names and the files they name, so
// creations, renames, removals, new subfolders) as of its last SyncDir. A new
// folder is durable in its parent only after SyncDir of the parent.
//
// Crash: power loss. What was durable stays; the rest may be lost. The
// atomic way to replace a file is WriteAtomic: temp file in the same folder,
// write, sync, close, rename, sync the folder. After a crash the file is the
// old or the new version, never a mix; SweepTemps clears temp files a crash
// left behind.
//
// Temp name: the one name every temp file cairn makes has, in its state
// folder and in a user's workspace alike (part of the format):
//
//	.<stem>.<pid>-<random>.cairn-tmp
//	 |      |     |        |
//	 |      |     |        TempSuffix, a suffix nobody picks
//	 |      |     16 lowercase hex digits, 64 random bits
//	 |      the writer's process id, decimal, no leading zero
//	 the base name of the file it is to become ("put" in the object
//	 store), cut at a UTF-8 boundary to at most 216 bytes, so the
//	 whole name fits in NameMax (255 bytes) for any legal file name
//
// IsTemp matches that grammar exactly, never a prefix: ".config.tmpl" or
// ".x.tmp123" are a person's files. A temp file is left over, and a sweep
// removes it, only when the process its pid names is gone, or when it is
// this process's and none of its writers holds it any more (CreateTemp and
// TempName hold a name until ReleaseTemp). So a sweep never removes the temp
// of a write in progress, in this process or another one; processes that
// share a folder must see each other's pids (one pid namespace). A dead
// writer's pid taken by a new process only keeps its temp a while longer,
// until that process ends. Temp files
// of earlier versions (".<name>.tmp<random>", ".<name><digits>",
// ".put.tmp-<pid>-<random>") do not have the shape, and are left alone.
//
// Fault: an error the disk returns, such as syscall.ENOSPC (full disk) or
// syscall.EIO; the caller must return it cleanly and leave nothing visible
// half-written.
//
// Lock: an exclusive, non-blocking lock on a file, to make sure one owner at
// a time writes a session. A second Lock fails with ErrLocked.
//
// # Implementations
//
// Disk is the real disk under one folder, through os.Root (which refuses
// escaping names and links). It opens without
// waiting and refuses what is neither a regular file nor a folder (a FIFO,
// a socket, a device planted under a file's name) with ErrNotRegular, so
// no reader of the state folder can block on one.
//
// Fenced is a Disk fenced off from folders inside (or around) it: every
// call works in the folder of its name, held open and checked by device
// and inode, with the folders above it, against the fenced ones, so no
// name and no link leads in. cairn fences a workspace that holds its
// state folder.
//
// Mem is in memory and keeps, beside the current state, the durable state.
// Crash reverts to the durable state; CrashPartial keeps a random share of
// the unsynced changes; FailAfterSyncs stops a program at its n-th sync so a
// test can crash at every sync point in turn. Handles from before a crash
// fail with ErrCrashed.
//
// Umask: the bits a new file or folder does not get (umask(2)). Umask(fsys)
// is the process's for Disk and Mem's own (SetUmask, 022 by default); an
// explicit Chmod ignores it, as on a disk.
//
// Faulty wraps any FS and fails the calls that match its Rules (an Op, a
// path.Match pattern, how many to let pass, how many to fail, the error).
//
// All of them pass one conformance suite, vfstest.Run.
package vfs
