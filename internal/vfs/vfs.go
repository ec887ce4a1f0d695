package vfs

import (
	"errors"
	"io"
	"io/fs"
	"os"
)

// FS is a tree of files rooted at one folder. Every name is slash-separated
// and relative to that folder ("sessions/abc.json"); "." is the folder itself.
// A name that is absolute, contains "..", or resolves through a symbolic link
// to somewhere outside the folder is refused with an error.
//
// Implementations: Disk (the real disk, through os.Root), Mem (in memory, with
// Crash), and Faulty (wraps another FS and injects errors).
type FS interface {
	// OpenFile opens a file with os.O_* flags, like os.OpenFile. It never
	// waits: a name that is neither a regular file nor a folder (a FIFO,
	// a socket, a device) is refused with ErrNotRegular.
	OpenFile(name string, flag int, perm fs.FileMode) (File, error)
	// Stat follows symbolic links; Lstat does not.
	Stat(name string) (fs.FileInfo, error)
	Lstat(name string) (fs.FileInfo, error)
	// ReadDir lists a folder sorted by name.
	ReadDir(name string) ([]fs.DirEntry, error)
	// MkdirAll creates a folder and any missing parents. It does not sync;
	// call SyncDir on each parent whose entries must be durable.
	MkdirAll(name string, perm fs.FileMode) error
	// Remove removes a file or an empty folder.
	Remove(name string) error
	// Rename atomically replaces newname with oldname. Not durable until
	// SyncDir of both folders.
	Rename(oldname, newname string) error
	// SyncDir makes the entries of a folder (creations, renames, removals)
	// durable.
	SyncDir(name string) error
	// Symlink creates newname as a symbolic link to oldname; Readlink reads one.
	Symlink(oldname, newname string) error
	Readlink(name string) (string, error)
	// Chmod changes the mode of a file.
	Chmod(name string, mode fs.FileMode) error
	// Lock takes an exclusive, non-blocking lock on the file name, creating it
	// if needed. It returns ErrLocked when another owner holds it. The lock is
	// held until Release, or until the process ends.
	Lock(name string) (Lock, error)
}

// Toucher is an FS that can set a file's modification time to now, by its
// own clock: the object store marks an object it was asked to store again
// as used now, so a prune (which removes only objects untouched for days)
// never takes one a new line is about to name.
type Toucher interface {
	Touch(name string) error
}

// Touch sets name's modification time to now when fsys can; else it does
// nothing.
func Touch(fsys FS, name string) error {
	if t, ok := fsys.(Toucher); ok {
		return t.Touch(name)
	}
	return nil
}

// Exchanger is an FS that can swap two names of one folder atomically, each
// keeping the other's file (renameat2 with RENAME_EXCHANGE on Linux): the
// replace of a file whose old content is then removed apart, off the path
// of the caller. Not durable until SyncDir of the folder. It returns an
// error wrapping errors.ErrUnsupported where the filesystem cannot; callers
// then Rename.
type Exchanger interface {
	Exchange(a, b string) error
}

// Exchange swaps names a and b of one folder with fsys's Exchanger, or
// returns errors.ErrUnsupported.
func Exchange(fsys FS, a, b string) error {
	if x, ok := fsys.(Exchanger); ok {
		return x.Exchange(a, b)
	}
	return errors.ErrUnsupported
}

// LockFile takes an exclusive lock on open file f, shared by every process
// that opens the same file, waiting for another holder; unlock releases it,
// and so does closing f. On an FS without such locks (Mem lives in one
// process) it does nothing.
func LockFile(f File) (unlock func() error, err error) {
	if l, ok := f.(fileLocker); ok {
		if err := l.LockExclusive(); err != nil {
			return nil, err
		}
		return l.Unlock, nil
	}
	return func() error { return nil }, nil
}

type fileLocker interface {
	LockExclusive() error
	Unlock() error
}

// File is an open file of an FS.
type File interface {
	io.Reader
	io.ReaderAt
	io.Writer
	io.Seeker
	io.Closer
	// Name is the name the file was opened with, relative to its FS.
	Name() string
	// Sync makes the file's data durable.
	Sync() error
	Stat() (fs.FileInfo, error)
	Truncate(size int64) error
}

// Lock is a held exclusive lock on a file.
type Lock interface {
	// File is the lock file, open for writing while the lock is held, so the
	// owner can record its pid in it.
	File() File
	// Release gives up the lock. The lock file is never deleted.
	Release() error
}

// Errors of the package.
var (
	// ErrLocked is returned by Lock when another owner holds the lock.
	ErrLocked = errors.New("vfs: locked by another owner")
	// ErrCrashed is returned by a Mem file handle opened before a Crash.
	ErrCrashed = errors.New("vfs: file handle from before a crash")
	// ErrNotRegular is returned by OpenFile and Lock for a name that is
	// neither a regular file nor a folder (a FIFO, a socket, a device).
	ErrNotRegular = errors.New("vfs: not a regular file")
	// ErrFenced is returned, in an *fs.PathError, for a name in a fenced
	// folder.
	ErrFenced = errors.New("vfs: inside a folder fenced off")
	// ErrSwapped: Exchange swapped a folder with a file and could not swap
	// them back; each name now holds what the other held. The caller must
	// leave both as they are (and say so): renaming or removing either
	// would move or delete the folder.
	ErrSwapped = errors.New("swapped with a folder and not swapped back")
)

// IsNotExist reports whether err says a file does not exist.
func IsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// IsEscape reports whether err says a name, or a symbolic link on its way,
// leads outside the FS's root. os.Root does not export its error for this,
// so it is known by its message, the one Mem's errEscapes gives too
// (TestIsEscape checks os.Root still says it).
func IsEscape(err error) bool {
	var pe *fs.PathError
	return errors.Is(err, errEscapes) || errors.As(err, &pe) && pe.Err.Error() == errEscapes.Error()
}

// IsExist reports whether err says a file already exists.
func IsExist(err error) bool { return errors.Is(err, fs.ErrExist) }

// Default permissions of the state folder: sessions hold prompts, code and
// secrets, so nothing is readable by other users.
const (
	DirPerm  fs.FileMode = 0o700
	FilePerm fs.FileMode = 0o600
)

// ReadFile reads a whole file, into a buffer of the size the file says it
// has (as os.ReadFile does): a large file is read without the buffer
// growing and being copied on the way.
func ReadFile(fsys FS, name string) ([]byte, error) {
	f, err := fsys.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := 512
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 && fi.Size() < 1<<30 {
		size = int(fi.Size()) + 1 // one more, to see the end without growing
	}
	b := make([]byte, 0, size)
	for {
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if errors.Is(err, io.EOF) {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// FSSyncer is an FS that can make the data of every file on the
// filesystem holding folder name durable in one call, as File.Sync of
// each would (syncfs(2) on Linux): the object store's batches sync the
// data of many new files at once this way. Folder entries are not
// promised: SyncDir them.
//
// SyncFS opens the handle whose Sync does it. Open it before the files it
// is to make durable are written: Sync reports the write-back errors of
// the filesystem since the handle was opened (syncfs(2) checks an error
// cursor taken when its folder was opened, so a handle opened after an
// error that another process's syncfs already reported misses it). It
// returns an error wrapping errors.ErrUnsupported where the system cannot.
type FSSyncer interface {
	SyncFS(name string) (FSSync, error)
}

// FSSync is an open handle of FSSyncer.SyncFS.
type FSSync interface {
	// Sync makes the data of every file on the filesystem durable, and
	// fails if writing any back failed since the handle was opened.
	Sync() error
	Close() error
}

// SyncFS opens fsys's FSSyncer handle on the filesystem of folder name, or
// returns errors.ErrUnsupported: callers then Sync each file.
func SyncFS(fsys FS, name string) (FSSync, error) {
	if s, ok := fsys.(FSSyncer); ok {
		return s.SyncFS(name)
	}
	return nil, errors.ErrUnsupported
}
