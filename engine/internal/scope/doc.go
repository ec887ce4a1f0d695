// Package scope says which workspace files a change record covers, and
// reads them: the engine-independent half of recording a shell line or any
// other tool call (seed 000, "Recording" and "Limits").
//
// It holds no locks and knows no Session: the caller serializes. It imports
// internal/vfs (to persist its stat cache) and objects (for the hash);
// engine imports it, never the reverse.
//
// # Scope of a shell line
//
// Parse turns one shell line, parsed with mvdan.cc/sh/v3/syntax, into a
// Scope of one of three kinds:
//
//   - ReadOnly: the line only reads, and records nothing. Every command is on
//     the read-only list (ReadOnlyCommands: git status/log/diff/show/…, rg,
//     grep, ls, cat, head, tail, wc, find without -delete/-exec/-fprint…,
//     pwd, echo, which, env without a program, …) and nothing is redirected
//     to a file. git's subcommands run the programs their repository's
//     config and hooks name (Scope.Git; GitRunsPrograms says which): the
//     engine takes the whole workspace when it names one. Pipelines and lists (|, &&, ||, ;, { }, ( )) of read-only
//     commands stay read-only.
//   - Paths: every write is to a literal path: the operands of rm, mkdir,
//     touch, tee, sed -i, the sources and destination of mv, the destination
//     of cp and ln, and the targets of output redirects (> >> >| &> &>> <>).
//     mv or cp into an existing folder (or with -t) records that whole
//     folder: a recorded path that is a folder stands for everything under
//     it (WalkPaths), so Parse needs no stat.
//   - Workspace: anything that cannot be told: a glob, a brace or tilde, a
//     variable or parameter expansion, a command or process substitution, a
//     heredoc or here-string, an assignment, an option not listed for its
//     command (or one that writes elsewhere or runs a program: find -exec,
//     sort -o, file -C, git grep -O, env -S, tree -R …), a sed script with
//     w, W or e (or the s flags w and e), or one read from a file,
//     cd/pushd/popd, a control structure (if, for, while, case,
//     functions), a background job, any other program, a line that does not
//     parse, a path that names the workspace root itself, or a name under
//     one that ln, cp or mv writes in the same line (it may pass a link the
//     line makes: Why "link").
//
// Paths are slash-separated, cleaned, relative to the workspace root (the
// shell runs there); an absolute path inside the root is made relative,
// and a path outside it (/dev/null, ../x, /tmp/y) is dropped: records never
// cover it. Parse reads no file; Scope.Names keeps every name as the shell
// will open it. Resolve then follows the links each name passes, as they
// are before the line runs: a write through a link to a folder of the
// workspace is recorded as the file it changes (real/r.txt for lin/r.txt),
// a final link as itself and as the file it leads to, a name leading
// outside is dropped, and a name that cannot be followed (a loop) sends
// the line to the whole workspace. A line naming only outside paths
// records nothing for them; a line whose every write was dropped is Paths
// with no paths.
//
// # The walk
//
// Walk lists every file a whole-workspace record covers, under a real
// folder (an absolute path), with its stat data and content hash:
//
//   - each folder's .gitignore applies to that folder and below, as git
//     does (last matching line wins, the deeper file first, a negation
//     cannot bring back a file inside an ignored folder); not
//     .git/info/exclude, not the global excludes file. A .gitignore that is
//     a symbolic link is not read (git refuses it too). The matcher is
//     ours (ignore.go): go-git's plumbing/format/gitignore differs from git
//     on "foo/**", on prefix matches under a negation, on "[!x]" and
//     character classes; TestIgnoreMatchesGit checks ours against git.
//   - symbolic links are entries of their own (Entry.Link holds the
//     target, the hash is that of the target text, as git stores them);
//     the walk never follows one.
//   - left out: nested repositories (a folder, other than the root, that
//     holds a .git), special files (sockets, FIFOs, devices), folders on
//     another filesystem than the root (TestWalkLeavesOutMountedFilesystem
//     mounts a tmpfs in the tree), the names of TopLevelLeftOut at the
//     top (.git .ssh .workcell .env .npmrc .pypirc .netrc), cairn's own temp
//     files (vfs.IsTemp), and everything inside the state folder
//     (Options.StateDir). A workspace that holds the state folder, or lies in it,
//     is not walked at all by a recorder: HoldsState says so.
//   - a folder that cannot be opened (no permission) is listed, but not
//     what it holds. A root reached through a link is walked as the folder
//     it leads to.
//   - limits (Options): MaxFiles and MaxBytes over every covered file,
//     changed or not, end the walk with a *LimitError (Limit is the
//     record's "why": "max_files", "max_bytes"); a file over MaxFileBytes
//     is listed with Skipped "max_file_bytes" and its size, never read; a
//     file that cannot be read (no permission) with Skipped "unreadable".
//
// A Tree is sorted by path (byte order) and holds folders too (with no
// size or times: theirs change with their entries). Options.Hash lets the
// caller store a file's content in the same read that hashes it, and
// Options.Flush make what it stored durable at the end of the walk, before
// the cache learns the hashes (the engine stores a walk's files in one
// objects.Batch: one sync of their data, one per object folder).
//
// WalkPaths covers the paths of a Paths scope: a named path is covered even
// when .gitignore ignores it, and so is everything under a named folder;
// the left-out rules still apply.
//
// # Stat cache
//
// A Cache maps a path and its stat data (size, mtime ns, ctime ns, inode,
// mode) to its content hash (SHA-256, objects.ID), so a second walk reads
// again only files whose stat changed. Git's racy-timestamp rule applies,
// per entry: an entry whose mtime or ctime is not older than its stamp (the
// time the walk that read it started, less 2 s for coarse filesystem
// clocks) is read again next time, as a change in the same clock tick as
// the read would leave its stat data unchanged. A whole walk drops the
// entries of files gone. Save writes the cache to one file atomically
// (vfs.WriteAtomic); LoadCache of a missing or corrupt file is an empty
// cache; Changed says whether a walk taught it anything since, so an
// unchanged cache need not be written again. Its format is in cache.go
// ("Part of the format"); it is derived data, rebuilt by the next walk.
//
// # Cost of a warm walk
//
// A walk whose files the cache gives makes the system calls git status
// makes for the same tree (strace on a copy of GOROOT/src: about 19,400
// against 20,600): a getdents64 pair, an open, an fstat and a close per
// folder, one fstatat per entry (by name in the open folder, not by path).
// Around them it allocates per folder, not per entry: one string for the
// folder's paths (readNames), one batch of entries, and the cache is
// looked up a folder at a time (cacheCursor). Folders are read by a pool
// of workers started once per walk (walkWorkers).
//
// # Diff
//
// Diff of two walks lists created, modified, deleted and mode-changed
// paths (only the executable bit counts, as in git), sorted by path. Diff
// of a tree and its Rescan compares the rescanned paths only.
//
// # Cost of a rescan
//
// A record with the watcher must cost what changed, not the size of the
// tree. A Tree holds its entries in chunks of at most 256 (tree.go), never
// changed once made: Rescan copies only the chunks its dirty paths fall
// in, and the list of chunks (a pointer and two lengths each), sharing
// every other chunk with the tree before; Diff of the two looks up the
// dirty paths only; the cache learns and forgets those paths only. Entries
// (the flat list) is for the callers that need all of them. The watcher
// finds the watches under a removed or moved folder through an index
// (watchSet), not a scan of every watched folder. BenchmarkRecordWatched
// measures the step on trees of 10,000 and 50,000 files; the engine's
// BenchmarkExecWatchedRecord the same through a shell line.
//
// # Watcher
//
// Watch starts an fsnotify watcher over the tree (minus ignored and
// left-out folders) that marks dirty paths. Dirty returns the dirty set
// since the last call, or says a full walk is needed: at the first call,
// after a queue overflow or an error, when the watcher cannot cover the
// tree (the inotify watch limit), or when a .gitignore or a .git changed.
// Dirty first waits for an event of its own (a file it makes in a folder
// of its own under os.TempDir), so every change made before the call is
// in its answer. Rescan of a previous walk and the dirty set gives the
// same Tree as a full walk would (TestWatcherRescanEqualsWalk).
//
// # Shared rules
//
// Nothing here is safe for concurrent use by several callers at once (a
// Cache by two walks, a Watcher's Dirty from two goroutines): the caller
// serializes, as it does every record of a workspace.
package scope
