package scope

import (
	"errors"
	"io/fs"
	"path/filepath"
	"sync"

	"golang.org/x/sys/unix"

	"cairn/internal/vfs"
)

// The walk's read-only seam: the system calls a walk reads a tree with,
// over file descriptors, so a test can fail any of them (FaultyReader).

// Reader is what a walk reads the tree through (Options.Read). Its calls
// are the system's, over file descriptors: a folder is opened once and its
// entries are stated and opened relative to it. A name given to Fstatat
// with unix.AT_SYMLINK_NOFOLLOW is followed in memory by a NUL byte (the
// walk's names are; cstr makes such a string), so the system's Reader
// gives it to the kernel in place, without a copy per entry.
type Reader interface {
	// Openat opens name of folder dirfd (unix.AT_FDCWD: an absolute
	// name) for reading, with unix.O_* flags.
	Openat(dirfd int, name string, flags int) (fd int, err error)
	Fstat(fd int) (unix.Stat_t, error)
	// Fstatat states name of folder dirfd; flags is 0 (follow a link) or
	// unix.AT_SYMLINK_NOFOLLOW. The stat data is returned by value: a
	// pointer given through an interface would move it to the heap, an
	// allocation per entry of a walk.
	Fstatat(dirfd int, name string, flags int) (unix.Stat_t, error)
	// ReadDirent reads folder fd's entries into buf, as getdents(2).
	ReadDirent(fd int, buf []byte) (n int, err error)
	Read(fd int, p []byte) (n int, err error)
	Readlinkat(dirfd int, name string, buf []byte) (n int, err error)
	Close(fd int) error
}

// System is the Reader of the system's calls, a walk's by default.
type System struct{}

func (System) Openat(dirfd int, name string, flags int) (int, error) {
	return unix.Openat(dirfd, name, flags, 0)
}

func (System) Fstat(fd int) (st unix.Stat_t, err error) {
	err = unix.Fstat(fd, &st)
	return st, err
}

func (System) Fstatat(dirfd int, name string, flags int) (st unix.Stat_t, err error) {
	if flags == unix.AT_SYMLINK_NOFOLLOW {
		err = fstatat0(dirfd, name, &st)
	} else {
		err = unix.Fstatat(dirfd, name, &st, flags)
	}
	return st, err
}

func (System) ReadDirent(fd int, buf []byte) (int, error) { return unix.ReadDirent(fd, buf) }
func (System) Read(fd int, p []byte) (int, error)         { return unix.Read(fd, p) }

func (System) Readlinkat(dirfd int, name string, buf []byte) (int, error) {
	return unix.Readlinkat(dirfd, name, buf)
}

func (System) Close(fd int) error { return unix.Close(fd) }

// cstr is s followed in memory by a NUL byte, for Reader.Fstatat.
func cstr(s string) string {
	c := s + "\x00"
	return c[:len(s)]
}

// FaultyReader wraps a Reader and fails the calls its rules match, before
// they reach it, with the words of package vfs's Faulty: Openat is
// vfs.OpOpen; Fstat, Fstatat and Readlinkat are vfs.OpStat; ReadDirent is
// vfs.OpReadDir; Read is vfs.OpRead; Close is never failed. A rule's Path
// is matched against the path the call reaches, relative to the root the
// FaultyReader was made for ("." the root itself, "sub/name" a file in a folder).
type FaultyReader struct {
	vfs.Faults
	inner Reader
	root  string

	mu    sync.Mutex
	paths map[int]string // the absolute path of each open fd
}

// NewFaultyReader wraps inner for walks of root (an absolute path, links
// resolved, as a walk resolves its root) with no rules.
func NewFaultyReader(inner Reader, root string) *FaultyReader {
	return &FaultyReader{inner: inner, root: filepath.Clean(root), paths: map[int]string{}}
}

// at is the absolute path of name in folder dirfd.
func (f *FaultyReader) at(dirfd int, name string) string {
	if dirfd == unix.AT_FDCWD {
		return filepath.Clean(name)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return filepath.Join(f.paths[dirfd], name)
}

func (f *FaultyReader) path(fd int) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.paths[fd]
}

// rel is p relative to the root, as a rule's Path is matched.
func (f *FaultyReader) rel(p string) string {
	if r, err := filepath.Rel(f.root, p); err == nil {
		return filepath.ToSlash(r)
	}
	return p
}

func (f *FaultyReader) check(op vfs.Op, p string) error {
	var pe *fs.PathError
	if err := f.Check(op, f.rel(p)); errors.As(err, &pe) {
		return pe.Err // the errno, as the system gives it
	}
	return nil
}

func (f *FaultyReader) Openat(dirfd int, name string, flags int) (int, error) {
	p := f.at(dirfd, name)
	if err := f.check(vfs.OpOpen, p); err != nil {
		return -1, err
	}
	fd, err := f.inner.Openat(dirfd, name, flags)
	if err == nil {
		f.mu.Lock()
		f.paths[fd] = p
		f.mu.Unlock()
	}
	return fd, err
}

func (f *FaultyReader) Fstat(fd int) (unix.Stat_t, error) {
	if err := f.check(vfs.OpStat, f.path(fd)); err != nil {
		return unix.Stat_t{}, err
	}
	return f.inner.Fstat(fd)
}

func (f *FaultyReader) Fstatat(dirfd int, name string, flags int) (unix.Stat_t, error) {
	if err := f.check(vfs.OpStat, f.at(dirfd, name)); err != nil {
		return unix.Stat_t{}, err
	}
	return f.inner.Fstatat(dirfd, name, flags)
}

func (f *FaultyReader) ReadDirent(fd int, buf []byte) (int, error) {
	if err := f.check(vfs.OpReadDir, f.path(fd)); err != nil {
		return 0, err
	}
	return f.inner.ReadDirent(fd, buf)
}

func (f *FaultyReader) Read(fd int, p []byte) (int, error) {
	if err := f.check(vfs.OpRead, f.path(fd)); err != nil {
		return 0, err
	}
	return f.inner.Read(fd, p)
}

func (f *FaultyReader) Readlinkat(dirfd int, name string, buf []byte) (int, error) {
	if err := f.check(vfs.OpStat, f.at(dirfd, name)); err != nil {
		return 0, err
	}
	return f.inner.Readlinkat(dirfd, name, buf)
}

func (f *FaultyReader) Close(fd int) error {
	f.mu.Lock()
	delete(f.paths, fd)
	f.mu.Unlock()
	return f.inner.Close(fd)
}
