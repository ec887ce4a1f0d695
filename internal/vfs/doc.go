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
// old or the new version, never a mix; RemoveTemps clears temp files a crash
// left behind.
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
// escaping names and links) and renameio for WriteAtomic. It opens without
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
