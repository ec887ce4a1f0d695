package scope

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"cairn/objects"
)

// TopLevelLeftOut are the names a record never holds at the top of the
// workspace, whatever .gitignore says.
var TopLevelLeftOut = []string{".git", ".ssh", ".workcell", ".env", ".npmrc", ".pypirc", ".netrc"}

// Options rule a walk.
type Options struct {
	// StateDir is the absolute path of cairn's state folder: nothing
	// inside it is ever walked. Empty: none.
	StateDir string
	// MaxFiles and MaxBytes bound the files a walk covers (every covered
	// file counts, changed or not; a skipped file counts its size): past
	// either the walk stops with a *LimitError. Zero: no bound.
	MaxFiles int
	MaxBytes int64
	// MaxFileBytes: a file larger than this is listed with Skipped set
	// and never read. Zero: no bound.
	MaxFileBytes int64
	// Cache, when set, gives the hash of a file whose stat data it holds
	// (and is not racy), and learns the hashes the walk reads.
	Cache *Cache
	// Hash, when set, reads a file the walk must hash (instead of a plain
	// SHA-256), so a caller can store its content in the same read: it
	// must return the SHA-256 of all of r (objects.Store.Put does).
	Hash func(rel string, r io.Reader) (objects.ID, error)
}

// Entry is one file, link or folder a walk covers.
type Entry struct {
	// Path is slash-separated and relative to the root.
	Path string
	// Mode holds the type bits (fs.ModeDir, fs.ModeSymlink, or none for a
	// regular file) and the permission bits.
	Mode fs.FileMode
	Size int64
	// MtimeNS and CtimeNS are the stat times in nanoseconds since 1970.
	MtimeNS, CtimeNS int64
	Ino              uint64
	// Hash is the SHA-256 of the content (a regular file) or of the
	// target text (a link); zero for a folder or a skipped file.
	Hash objects.ID
	// Link is a link's target.
	Link string
	// Skipped: a regular file over Options.MaxFileBytes, not read.
	Skipped bool
}

// IsDir reports whether e is a folder.
func (e *Entry) IsDir() bool { return e.Mode.IsDir() }

// Exec reports whether e is a regular file with an executable bit, the
// one permission bit records keep.
func (e *Entry) Exec() bool { return e.Mode.IsRegular() && e.Mode&0o111 != 0 }

// Tree is the result of a walk: every covered entry, folders included,
// sorted by Path (byte order), the root itself left out.
type Tree struct {
	Entries []Entry
	// Files and Bytes count the regular files and links, and their sizes.
	Files int
	Bytes int64
}

// LimitError says a walk passed one of its limits.
type LimitError struct {
	// Limit is "max_files" or "max_bytes", the words of records' "why".
	Limit string
	// Path is where the walk was when it passed it.
	Path string
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("scope: the workspace passes %s (at %s)", e.Limit, e.Path)
}

// errNotBuilt marks what is published but not written yet.
var errNotBuilt = errors.New("scope: not built yet")

// Walk lists every entry a whole-workspace record covers under the folder
// root (an absolute path), with the rules of the package doc.
func Walk(ctx context.Context, root string, opts Options) (*Tree, error) {
	return nil, errNotBuilt
}

// WalkPaths lists the named paths (relative, as Scope.Paths) and, for a
// folder, everything under it: what a record of literal paths covers. A
// named path is covered even when .gitignore ignores it, and so is what is
// under a named folder; the left-out rules (nested repositories, special
// files, other filesystems, the state folder, the top-level names) still
// apply. A path that does not exist is absent from the Tree.
func WalkPaths(ctx context.Context, root string, paths []string, opts Options) (*Tree, error) {
	return nil, errNotBuilt
}

// Rescan is the walk of root after the changes of the dirty paths only
// (Watcher.Dirty), from prev, the walk before them: the same Tree a full
// Walk gives when every change since prev is under a dirty path.
func Rescan(ctx context.Context, root string, prev *Tree, dirty []string, opts Options) (*Tree, error) {
	return nil, errNotBuilt
}

// ContainsStateFolder reports whether the workspace root holds the state
// folder stateDir (or is it): such a workspace is not recorded, and the
// caller says so once ("state_folder").
func ContainsStateFolder(root, stateDir string) bool {
	return false
}
