package vfs

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Disk is the real disk under one folder. Every name is opened relative to an
// os.Root, so no name and no symbolic link can reach outside the folder.
type Disk struct {
	root *os.Root
	dir  string
}

// OpenDisk opens the folder dir, which must exist.
func OpenDisk(dir string) (*Disk, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(abs)
	if err != nil {
		return nil, err
	}
	return &Disk{root: r, dir: abs}, nil
}

// Dir is the absolute path of the folder.
func (d *Disk) Dir() string { return d.dir }

// RealPath is the absolute path on disk of name, for tools that need a path
// (fsnotify). It checks nothing: open files through the FS.
func (d *Disk) RealPath(name string) string { return filepath.Join(d.dir, filepath.FromSlash(name)) }

// Close releases the os.Root.
func (d *Disk) Close() error { return d.root.Close() }

// OpenFile opens name without waiting (O_NONBLOCK) and refuses, with
// ErrNotRegular, what is neither a regular file nor a folder: a FIFO, a
// socket or a device planted under a file's name would otherwise block the
// open, or a read, for ever. O_NONBLOCK changes nothing for a regular file.
func (d *Disk) OpenFile(name string, flag int, perm fs.FileMode) (File, error) {
	f, err := openRegular(d.root, name, flag, perm)
	if err != nil {
		return nil, err
	}
	return &diskFile{File: f, name: name}, nil
}

// openDir opens folder name in root without waiting: a FIFO in a
// folder's place fails (ENOTDIR) rather than block the open.
func openDir(root *os.Root, name string) (*os.File, error) {
	return root.OpenFile(name, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK, 0)
}

// openRegular opens name in root as OpenFile does.
func openRegular(root *os.Root, name string, flag int, perm fs.FileMode) (*os.File, error) {
	f, err := root.OpenFile(name, flag|syscall.O_NONBLOCK, perm)
	if errors.Is(err, syscall.ENXIO) {
		// A FIFO without a reader opened for writing, or a socket.
		return nil, &fs.PathError{Op: "open", Path: name, Err: ErrNotRegular}
	}
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() && !fi.IsDir() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: name, Err: ErrNotRegular}
	}
	return f, nil
}

func (d *Disk) Stat(name string) (fs.FileInfo, error)  { return d.root.Stat(name) }
func (d *Disk) Lstat(name string) (fs.FileInfo, error) { return d.root.Lstat(name) }

func (d *Disk) ReadDir(name string) ([]fs.DirEntry, error) {
	f, err := openDir(d.root, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents, err
}

// ReadDirNames is ReadDir's names alone (NamesReader): no Lstat of each
// entry, which ReadDir of a folder opened in an os.Root makes.
func (d *Disk) ReadDirNames(name string) ([]string, error) {
	f, err := openDir(d.root, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	slices.Sort(names)
	return names, err
}

func (d *Disk) MkdirAll(name string, perm fs.FileMode) error { return d.root.MkdirAll(name, perm) }
func (d *Disk) Remove(name string) error                     { return d.root.Remove(name) }
func (d *Disk) Rename(oldname, newname string) error         { return d.root.Rename(oldname, newname) }
func (d *Disk) Symlink(oldname, newname string) error        { return d.root.Symlink(oldname, newname) }
func (d *Disk) Readlink(name string) (string, error)         { return d.root.Readlink(name) }
func (d *Disk) Chmod(name string, mode fs.FileMode) error    { return d.root.Chmod(name, mode) }

// Touch sets name's modification time to now (Toucher).
func (d *Disk) Touch(name string) error {
	now := time.Now()
	return d.root.Chtimes(name, now, now)
}

func (d *Disk) SyncDir(name string) error {
	f, err := openDir(d.root, name)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return &fs.PathError{Op: "syncdir", Path: name, Err: err}
	}
	return nil
}

// Lock takes an exclusive non-blocking flock on name. The lock file is
// never deleted.
func (d *Disk) Lock(name string) (Lock, error) {
	return d.lock(name, unix.LOCK_EX)
}

// lock takes flock how (LOCK_EX or LOCK_SH) on name without waiting, on
// the file opened through the root: the file locked is the one the name
// leads to inside the folder, whatever links or renames say of its path
// outside it.
func (d *Disk) lock(name string, how int) (Lock, error) {
	f, err := openRegular(d.root, name, os.O_RDWR|os.O_CREATE, FilePerm)
	if err != nil {
		return nil, err
	}
	err = flockFd(f, how|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		f.Close()
		return nil, &fs.PathError{Op: "lock", Path: name, Err: ErrLocked}
	}
	if err != nil {
		f.Close()
		return nil, &fs.PathError{Op: "lock", Path: name, Err: err}
	}
	return &diskLock{f: &diskFile{File: f, name: name}}, nil
}

// diskLock is a flock held on its open file; closing the file would give
// it back too, Release says so first.
type diskLock struct {
	f *diskFile
}

func (l *diskLock) File() File { return l.f }
func (l *diskLock) Release() error {
	err := flockFd(l.f.File, unix.LOCK_UN)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	return err
}

type diskFile struct {
	*os.File
	name string
}

func (f *diskFile) Name() string { return f.name }

// The file's methods name it in their errors as it was opened, relative to
// the FS, as the FS's own methods do: an *os.File of an os.Root names
// itself by its absolute path, which is where a message would show a
// user's home folder.
func (f *diskFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	return n, f.named(err)
}

func (f *diskFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.File.ReadAt(p, off)
	return n, f.named(err)
}

func (f *diskFile) Write(p []byte) (int, error) {
	n, err := f.File.Write(p)
	return n, f.named(err)
}

func (f *diskFile) WriteAt(p []byte, off int64) (int, error) {
	n, err := f.File.WriteAt(p, off)
	return n, f.named(err)
}

func (f *diskFile) ReadFrom(r io.Reader) (int64, error) {
	n, err := f.File.ReadFrom(r)
	return n, f.named(err)
}

func (f *diskFile) WriteTo(w io.Writer) (int64, error) {
	n, err := f.File.WriteTo(w)
	return n, f.named(err)
}

func (f *diskFile) Seek(off int64, whence int) (int64, error) {
	n, err := f.File.Seek(off, whence)
	return n, f.named(err)
}

func (f *diskFile) Stat() (fs.FileInfo, error) {
	fi, err := f.File.Stat()
	return fi, f.named(err)
}

func (f *diskFile) Sync() error               { return f.named(f.File.Sync()) }
func (f *diskFile) Truncate(size int64) error { return f.named(f.File.Truncate(size)) }
func (f *diskFile) Close() error              { return f.named(f.File.Close()) }

// named is err with the path of a *fs.PathError about this file replaced
// by the file's name; any other error as it is.
func (f *diskFile) named(err error) error {
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe != err || pe.Path != f.File.Name() || pe.Path == f.name {
		return err
	}
	return &fs.PathError{Op: pe.Op, Path: f.name, Err: pe.Err}
}

// LockExclusive takes flock(LOCK_EX) on the open file, waiting for another
// holder; closing the file releases it.
func (f *diskFile) LockExclusive() error { return f.flock(unix.LOCK_EX) }

// Unlock releases the lock LockExclusive took.
func (f *diskFile) Unlock() error { return f.flock(unix.LOCK_UN) }

func (f *diskFile) flock(how int) error { return flockFd(f.File, how) }
