package vfs

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/gofrs/flock"
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

func (d *Disk) OpenFile(name string, flag int, perm fs.FileMode) (File, error) {
	f, err := d.root.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return &diskFile{File: f, name: name}, nil
}

func (d *Disk) Stat(name string) (fs.FileInfo, error)  { return d.root.Stat(name) }
func (d *Disk) Lstat(name string) (fs.FileInfo, error) { return d.root.Lstat(name) }

func (d *Disk) ReadDir(name string) ([]fs.DirEntry, error) {
	f, err := d.root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents, err
}

func (d *Disk) MkdirAll(name string, perm fs.FileMode) error { return d.root.MkdirAll(name, perm) }
func (d *Disk) Remove(name string) error                     { return d.root.Remove(name) }
func (d *Disk) Rename(oldname, newname string) error         { return d.root.Rename(oldname, newname) }
func (d *Disk) Symlink(oldname, newname string) error        { return d.root.Symlink(oldname, newname) }
func (d *Disk) Readlink(name string) (string, error)         { return d.root.Readlink(name) }
func (d *Disk) Chmod(name string, mode fs.FileMode) error    { return d.root.Chmod(name, mode) }

func (d *Disk) SyncDir(name string) error {
	f, err := d.root.Open(name)
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

// Lock takes an exclusive non-blocking flock on name (gofrs/flock). The lock
// file is never deleted.
func (d *Disk) Lock(name string) (Lock, error) {
	// Create it through the root first, so a planted link cannot make flock
	// create a file outside the folder.
	f, err := d.root.OpenFile(name, os.O_RDWR|os.O_CREATE, FilePerm)
	if err != nil {
		return nil, err
	}
	fl := flock.New(d.RealPath(name), flock.SetFlag(os.O_RDWR), flock.SetPermissions(FilePerm))
	ok, err := fl.TryLock()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("vfs: lock %s: %w", name, err)
	}
	if !ok {
		f.Close()
		return nil, &fs.PathError{Op: "lock", Path: name, Err: ErrLocked}
	}
	return &diskLock{fl: fl, f: &diskFile{File: f, name: name}}, nil
}

type diskLock struct {
	fl *flock.Flock
	f  *diskFile
}

func (l *diskLock) File() File { return l.f }
func (l *diskLock) Release() error {
	err := l.fl.Unlock()
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

// LockExclusive takes flock(LOCK_EX) on the open file, waiting for another
// holder; closing the file releases it.
func (f *diskFile) LockExclusive() error { return f.flock(syscall.LOCK_EX) }

// Unlock releases the lock LockExclusive took.
func (f *diskFile) Unlock() error { return f.flock(syscall.LOCK_UN) }

func (f *diskFile) flock(how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			return err
		}
	}
}
