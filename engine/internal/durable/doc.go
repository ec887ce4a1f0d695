// Package durable moves, copies and removes files and folders of the state
// folder so that a crash leaves each whole in one place or the other: a
// copy is written to a temp file and renamed, a removal syncs its folder.
// A session move (package migrate) and the trash (package trash) use it.
//
// # Words
//
//   - durable: the change is on disk once the call returns: its data
//     synced, and the folder that names it synced.
//   - gone: a name that is not there is not an error to a removal or a
//     move; it was done before.
//
// It holds no state and takes no lock: the caller holds the session lock
// that makes the files its own. It imports internal/vfs.
package durable
