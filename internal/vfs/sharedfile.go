package vfs

import (
	"errors"
	"io/fs"
	"os"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// SharedLockFile is a shared lock (SharedLocker) on one lock file, taken
// and given back any number of times: on the disk its file stays open
// between them, so taking it is one flock and a fstat, where LockShared
// opens the file (twice), sets it up and closes it each time. The lock
// belongs to the handle, not to a goroutine: taken twice it is held once,
// and one Unlock gives it back, so a caller with many owners counts them
// (the engine's call lock does).
type SharedLockFile interface {
	// TryShared takes the shared lock without waiting: ErrLocked (in an
	// *fs.PathError) while an exclusive one is held. Held already, it
	// does nothing, unless the file was removed since: then it takes it
	// also on the file now at the name, so a new owner is seen there.
	TryShared() error
	// Unlock gives the shared lock back.
	Unlock() error
	// Close gives the lock back and closes the file.
	Close() error
}

// OpenSharedLock returns name's SharedLockFile in fsys, creating the file
// when first taken. On the disk (a *Disk) the file is kept open; on any
// other FS each TryShared takes a new LockShared and Unlock releases it.
func OpenSharedLock(fsys FS, name string) SharedLockFile {
	if d, ok := fsys.(*Disk); ok {
		return &diskSharedLock{d: d, name: name}
	}
	return &sharedLockEach{fsys: fsys, name: name}
}

// diskSharedLock keeps its lock file open between locks. A file found
// unlinked when the lock is taken (its folder removed, or the file
// removed by hand) is opened again by its name, so the lock is always
// taken on the file other processes open; while held, the unlinked file
// keeps its lock too (stale) until Unlock, for the owners that took it.
type diskSharedLock struct {
	mu    sync.Mutex
	d     *Disk
	name  string
	f     *os.File   // nil until first taken
	held  bool       // f is flock'd shared
	stale []*os.File // unlinked files still flock'd for earlier owners
}

func (l *diskSharedLock) TryShared() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		var st syscall.Stat_t
		if err := syscall.Fstat(int(l.f.Fd()), &st); err != nil || st.Nlink == 0 {
			if l.held {
				l.stale = append(l.stale, l.f)
			} else {
				l.f.Close()
			}
			l.f, l.held = nil, false
		}
	}
	if l.held {
		return nil
	}
	if l.f == nil {
		f, err := openRegular(l.d.root, l.name, os.O_RDWR|os.O_CREATE, FilePerm)
		if err != nil {
			return err
		}
		l.f = f
	}
	err := flockFd(l.f, unix.LOCK_SH|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return &fs.PathError{Op: "lock", Path: l.name, Err: ErrLocked}
	}
	if err != nil {
		return &fs.PathError{Op: "lock", Path: l.name, Err: err}
	}
	l.held = true
	return nil
}

func (l *diskSharedLock) Unlock() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.dropStale()
	if l.f == nil || !l.held {
		return nil
	}
	l.held = false
	return flockFd(l.f, unix.LOCK_UN)
}

func (l *diskSharedLock) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.dropStale()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f, l.held = nil, false
	return err
}

// dropStale closes the unlinked files, giving their locks back. l.mu is
// held.
func (l *diskSharedLock) dropStale() {
	for _, f := range l.stale {
		f.Close()
	}
	l.stale = nil
}

// flockFd calls flock(2) on f, again when interrupted: the one way cairn
// takes a lock on the disk, always on a file opened through the root.
func flockFd(f *os.File, how int) error {
	for {
		err := unix.Flock(int(f.Fd()), how)
		if err != unix.EINTR {
			return err
		}
	}
}

// sharedLockEach takes a new LockShared each time.
type sharedLockEach struct {
	mu   sync.Mutex
	fsys FS
	name string
	l    Lock
}

func (l *sharedLockEach) TryShared() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.l != nil {
		return nil
	}
	lk, err := LockShared(l.fsys, l.name)
	if err != nil {
		return err
	}
	l.l = lk
	return nil
}

func (l *sharedLockEach) Unlock() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.l == nil {
		return nil
	}
	err := l.l.Release()
	l.l = nil
	return err
}

func (l *sharedLockEach) Close() error { return l.Unlock() }

// Flock is flock(2) on f (unix.LOCK_EX, LOCK_SH, LOCK_UN, with LOCK_NB),
// for a file opened outside an FS: the same call every lock of the disk
// takes.
func Flock(f *os.File, how int) error { return flockFd(f, how) }
