// Package owner is who owns a session: the flock on its lock file, the
// owner's hint beside it, and the temp files an owner that died leaves.
//
// # Ownership
//
// A process that has a session open for writing holds an exclusive flock
// on sessions/<id>.lock, which holds its pid (Acquire). The lock file is
// never deleted. So that a listing can mark owned sessions without trying
// every lock, the owner also leaves a hint, owners/<id>, removed when it
// lets go (Release); a listing checks each hint against the lock itself
// (PID), so a hint left by a crash is never believed. Such a hint says the
// owner died with the session open: the next open of a session of the
// workspace collects the temp files its writes left, then removes it.
//
// Part of the format. The lock file holds the owner's pid, and the word
// "brief" after it when the owner holds it for one call (an agent's hook):
//
//	12345 brief
//
// The hint holds the owner's pid, then the folders its file tools stage
// temp files in, each a JSON string on a line of its own, added before the
// first temp file goes there (NoteStaging):
//
//	12345
//	"src"
//	"src/app"
//
// So the folder of a tool write killed before its change line was written
// is known too. The hint is not synced: after a power loss the change
// lines, and the two newest changes' folders, are what is left to go by.
//
// # Temp files
//
// Temp files are what an interrupted write leaves: dot files beside the
// file they were to replace, named by the one temp grammar of vfs
// (".<name>.<pid>-<16 hex>.cairn-tmp"). A file is removed only when its
// name has that exact shape and the process its pid names no longer needs
// it (vfs.TempLeftover): a person's ".config.tmpl" is never touched, and
// neither is the temp of a write in progress in another cairn process.
// In the user's workspace, where walking the tree would cost too much,
// only the folders cairn can know it wrote in are swept: those a dead
// owner's hint names and those its change lines name (ChangeDirs).
//
// # Words
//
//   - ws: a workspace folder, relative to the state folder.
//   - hint: owners/<id>; noted: the folders a hint names.
//
// # Locks
//
// Nothing here holds state. Acquire takes the session's flock and returns
// it; the caller releases it (Release). SweepDeadOwners and RemoveUnmade
// take and release the flocks of the sessions they sweep, never waiting.
package owner
