package vfs

import (
	"errors"
	"io/fs"
	"os"
	"sync"
	"syscall"
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
	// *fs.PathError) while an exclusive one is held.
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
// taken on the file other processes open.
type diskSharedLock struct {
	mu   sync.Mutex
	d    *Disk
	name string
	f    *os.File // nil until first taken
}

func (l *diskSharedLock) TryShared() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		var st syscall.Stat_t
		if err := syscall.Fstat(int(l.f.Fd()), &st); err != nil || st.Nlink == 0 {
			l.f.Close()
			l.f = nil
		}
	}
	if l.f == nil {
		f, err := openRegular(l.d.root, l.name, os.O_RDWR|os.O_CREATE, FilePerm)
		if err != nil {
			return err
		}
		l.f = f
	}
	err := flockFd(l.f, syscall.LOCK_SH|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return &fs.PathError{Op: "lock", Path: l.name, Err: ErrLocked}
	}
	if err != nil {
		return &fs.PathError{Op: "lock", Path: l.name, Err: err}
	}
	return nil
}

func (l *diskSharedLock) Unlock() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	return flockFd(l.f, syscall.LOCK_UN)
}

func (l *diskSharedLock) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// flockFd calls flock(2) on f, again when interrupted.
func flockFd(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
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
