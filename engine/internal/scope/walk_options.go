package scope

import (
	"fmt"
	"io"
	"io/fs"

	"cairn/objects"
)

// What a walk is told (Options) and what it lists (Entry); walk.go walks.

// TopLevelLeftOut are the names a record never holds at the top of the
// workspace, whatever .gitignore says.
var TopLevelLeftOut = []string{".git", ".ssh", ".workcell", ".env", ".npmrc", ".pypirc", ".netrc"}

// Options rule a walk.
type Options struct {
	// StateDir is the absolute path of cairn's state folder: nothing
	// inside it is ever walked. Empty: none.
	StateDir string
	// MaxFiles and MaxBytes bound the files a walk covers (every covered
	// file and link counts, changed or not; a skipped file counts as a
	// file but not its bytes, which are never stored): past either the
	// walk stops with a *LimitError. Zero: no bound.
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
	// Flush, when set, is called once the walk has read every file and
	// before the cache learns their hashes; its error fails the walk. A
	// caller whose Hash stores contents without making each durable (an
	// objects.Batch) makes them durable here, so the cache only ever
	// learns the hash of a durable object.
	Flush func() error
	// Read is what the walk reads the tree through; nil: the system's
	// calls (System). Tests give a FaultyReader.
	Read Reader
}

// Entry is one file, link or folder a walk covers.
type Entry struct {
	// Path is slash-separated and relative to the root.
	Path string
	// Mode holds the type bits (fs.ModeDir, fs.ModeSymlink, or none for a
	// regular file) and the permission bits.
	Mode fs.FileMode
	Size int64
	// MtimeNS and CtimeNS are the stat times in nanoseconds since 1970
	// (zero for a folder, as its Size).
	MtimeNS, CtimeNS int64
	Ino              uint64
	// Hash is the SHA-256 of the content (a regular file) or of the
	// target text (a link); zero for a folder or a skipped file.
	Hash objects.ID
	// Link is a link's target.
	Link string
	// Skipped says why a regular file was not read (its Hash is zero):
	// "max_file_bytes" (over Options.MaxFileBytes) or "unreadable" (no
	// permission, or it vanished while read). Empty: read.
	Skipped string
}

// IsDir reports whether e is a folder.
func (e *Entry) IsDir() bool { return e.Mode.IsDir() }

// Exec reports whether e is a regular file with an executable bit, the
// one permission bit records keep.
func (e *Entry) Exec() bool { return e.Mode.IsRegular() && e.Mode&0o111 != 0 }

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
