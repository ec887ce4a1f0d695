// Package checkouts finds the other checkouts (worktrees) of a git
// repository, read from the repository's own files as `git worktree list`
// reads them, with no git process, and keeps the checkouts cairn saw
// sessions in.
//
// # Words
//
//   - common folder: the repository's .git folder that every worktree
//     shares. A checkout's .git is a folder (the main worktree: the common
//     folder) or a file "gitdir: DIR" (a linked worktree: DIR is
//     <common>/worktrees/<name>, whose "commondir" file names the common
//     folder, relative to DIR).
//   - linked worktree: listed by <common>/worktrees/<name>/gitdir, which
//     names its .git file; one whose folder is gone stays listed until
//     `git worktree prune`, and is Gone here.
//   - main worktree: the common folder's parent when the common folder is
//     named .git (a bare repository has none).
//
// # The repos file
//
// So that sessions left in a worktree removed with `git worktree remove`
// (which takes its metadata away) are still found, cairn keeps the
// checkouts it saw sessions in. Part of the format:
//
//	repos/<16 hex of SHA-256 of the common folder>.json
//	  {"v":1,"common_dir":DIR,"checkouts":[DIR,...]}
//
// written whole (temp, fsync, rename) when a checkout is first seen.
//
// # Rules
//
// It holds no locks and knows no session. It reads the repository through
// the os package (the user's files, not the state folder), each git file
// with readHead, which never waits on a FIFO put in a file's place; the
// repos file goes through internal/vfs. It imports engine/internal/layout and internal/vfs.
package checkouts
