package callrec

import (
	"context"
	"errors"
	"path"
	"sync"
	"time"

	"cairn/internal/vfs"
)

// The workspace call lock, workspaces/<key>/calls.lock: every file-tool
// call and every recorded call holds it shared while it runs, in
// whichever process; a file revert or unrevert takes it alone, without
// waiting, so it runs only while every live session of the workspace is
// idle, and no call starts while it runs (a call waits for it). A call
// whose lock cannot be taken for any other reason is refused: the lock is
// what keeps a revert out, and a call never runs on "cannot tell". The
// lock file is never removed.

// LockName is workspace folder dir's call lock.
func LockName(dir string) string { return path.Join(dir, "calls.lock") }

// Lock is one workspace's call lock as a store holds it shared: its file
// kept open (vfs.SharedLockFile), the flock taken when the first call of
// any of the store's sessions starts and given back when the last ends,
// so a call costs a flock and a fstat rather than opening the file. Its
// mutex guards every field.
type Lock struct {
	mu     sync.Mutex
	f      vfs.SharedLockFile
	n      int  // calls holding it
	closed bool // the store is closed: the last call to end closes f
}

// NewLock is the call lock of workspace folder dir of fsys, not taken.
func NewLock(fsys vfs.FS, dir string) *Lock {
	return &Lock{f: vfs.OpenSharedLock(fsys, LockName(dir))}
}

// take counts one more call, taking the lock for the first, and for a
// later one again on the lock file now at its name when the one held was
// removed (vfs.SharedLockFile.TryShared): ErrLocked while a file revert
// holds it alone.
func (l *Lock) take() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.f.TryShared(); err != nil {
		return err
	}
	l.n++
	return nil
}

// Give counts one call less, giving the lock back after the last.
func (l *Lock) Give() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n--; l.n == 0 {
		if l.closed {
			l.f.Close()
		} else {
			l.f.Unlock()
		}
	}
}

// Close closes the lock's file at the store's close: at once when no call
// holds it, else when the last one ends, so a call still running keeps a
// file revert out until it ends.
func (l *Lock) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if l.n == 0 {
		l.f.Close()
	}
}

// Take takes the lock shared for one call, waiting while a file revert
// holds it alone, or for ctx to end. When the lock file is missing and
// remake (nil: never) makes the workspace folder again, it tries once
// more. Any other failure is returned: the call must not run.
func (l *Lock) Take(ctx context.Context, remake func() bool) error {
	wait := time.Millisecond
	for {
		err := l.take()
		if vfs.IsNotExist(err) && remake != nil {
			again := remake()
			remake = nil
			if again {
				continue
			}
		}
		if err == nil || !errors.Is(err, vfs.ErrLocked) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 20*time.Millisecond)
	}
}
