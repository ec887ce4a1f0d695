package engine

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"cairn/internal/vfs"
)

// The workspace call lock, workspaces/<key>/calls.lock: every file-tool
// call and every recorded call (RecordCall; an exec line unless it only
// reads and is not the user's own) holds it shared while it runs, in
// whichever process; a file revert or unrevert takes it alone, without
// waiting, so it runs only while every live session of the workspace is
// idle, and no call starts while it runs (a call waits for it). A call
// whose lock cannot be taken for any other reason is refused: the lock is
// what keeps a revert out, and a call never runs on "cannot tell". The
// lock file is never removed.

// callsLockName is the workspace's call lock.
func callsLockName(dir string) string { return path.Join(dir, "calls.lock") }

// callCount counts a session's calls running now (each holding the call
// lock shared): a file revert of the session refuses while any runs.
type callCount struct{ n atomic.Int32 }

// beginCall takes the workspace call lock shared for one call of s,
// waiting while a file revert holds it alone, or for ctx to end. When the
// lock cannot be taken for another reason (the workspace folder or its
// lock file cannot be made or opened) the call is refused, naming why, and
// nothing runs: a call without the lock could run under a file revert of
// another session, which would then put back files it is changing. end
// gives the lock back.
func (s *Session) beginCall(ctx context.Context) (end func(), err error) {
	w := s.ws
	// The workspace folder is made sure of once: after that, the lock file
	// kept open says the folder is still there (a removed one is made
	// again when the lock file is found gone).
	dir, ensured := w.madeDir(), false
	if dir == "" {
		if err := w.ensure(); err != nil {
			return nil, noCallLock(err)
		}
		dir, ensured = w.madeDir(), true
	}
	s.running.n.Add(1)
	cl := w.s.callLock(dir)
	wait := time.Millisecond
	for {
		err = cl.take()
		if vfs.IsNotExist(err) && !ensured {
			if ensured = true; w.ensure() == nil {
				continue
			}
		}
		if err == nil || !errors.Is(err, vfs.ErrLocked) {
			break
		}
		select {
		case <-ctx.Done():
			s.running.n.Add(-1)
			return nil, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 20*time.Millisecond)
	}
	if err != nil {
		s.running.n.Add(-1)
		return nil, noCallLock(err)
	}
	return func() {
		cl.give()
		s.running.n.Add(-1)
	}, nil
}

// noCallLock refuses a call whose workspace call lock cannot be taken for
// a reason other than a file revert holding it.
func noCallLock(err error) error {
	return refusedf("the workspace call lock cannot be taken (%w): a call runs only under it, so that no file revert of another session runs meanwhile", err)
}

// callLock is one workspace's call lock as this store holds it shared:
// its file kept open (vfs.SharedLockFile), the flock taken when the first
// call of any of the store's sessions starts and given back when the last
// ends, so a call costs a flock and a fstat rather than opening the file.
type callLock struct {
	mu     sync.Mutex
	f      vfs.SharedLockFile
	n      int  // calls holding it
	closed bool // the store is closed: the last call to end closes f
}

// callLock returns workspace folder dir's call lock.
func (s *Store) callLock(dir string) *callLock {
	if l, ok := s.callLocks.Load(dir); ok {
		return l.(*callLock)
	}
	l, _ := s.callLocks.LoadOrStore(dir, &callLock{f: vfs.OpenSharedLock(s.fsys, callsLockName(dir))})
	return l.(*callLock)
}

// take counts one more call, taking the lock for the first, and for a
// later one again on the lock file now at its name when the one held was
// removed (vfs.SharedLockFile.TryShared): ErrLocked while a file revert
// holds it alone.
func (l *callLock) take() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.f.TryShared(); err != nil {
		return err
	}
	l.n++
	return nil
}

// give counts one call less, giving the lock back after the last.
func (l *callLock) give() {
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

// closeCallLocks closes every call lock's file at the store's close: at
// once when no call holds it, else when the last one ends, so a call still
// running keeps a file revert out until it ends, as its own lock did when
// each call opened one.
func (s *Store) closeCallLocks() {
	s.callLocks.Range(func(_, v any) bool {
		l := v.(*callLock)
		l.mu.Lock()
		defer l.mu.Unlock()
		l.closed = true
		if l.n == 0 {
			l.f.Close()
		}
		return true
	})
}

// enterCall starts a call of s that changes files, taking what it holds
// while it runs, in this order: the workspace call lock shared (when
// lockCalls), then the undo stack's lock; then it writes the cancel lines
// owed (internal/changes/cancel.go). When they cannot be written it gives both
// back and returns the error with nothing appended ("nothing was
// changed"). leave gives both back.
func (s *Session) enterCall(ctx context.Context, lockCalls bool, nothing string) (leave func(), err error) {
	endCall := func() {}
	if lockCalls {
		if endCall, err = s.beginCall(ctx); err != nil {
			return nil, err
		}
	}
	s.snaps.mu.Lock()
	leave = func() {
		s.snaps.mu.Unlock()
		endCall()
	}
	if err := s.payCancels(); err != nil {
		leave()
		return nil, fmt.Errorf("%w; %s", err, nothing)
	}
	return leave, nil
}

// lockCallsAlone takes the workspace call lock alone for a file revert or
// unrevert of s: refused while a call of s runs, or while any other
// session of the workspace, in any process, runs one.
func (s *Session) lockCallsAlone(what string) (vfs.Lock, error) {
	if err := s.refuseRunning(what); err != nil {
		return nil, err
	}
	w := s.ws
	if err := w.ensure(); err != nil {
		return nil, err
	}
	l, err := w.s.fsys.Lock(callsLockName(w.dir))
	if errors.Is(err, vfs.ErrLocked) {
		return nil, refusedf("cannot %s files: another session of this workspace is running a call (busy); %s needs every live session of the workspace idle", what, what)
	}
	if err != nil {
		return nil, fmt.Errorf("engine: %s: take the workspace call lock: %w", what, err)
	}
	return l, nil
}

// refuseRunning refuses a file revert or unrevert while a call of s runs,
// or one of its tasks (refuseTasks). It is asked first without waiting,
// before the undo stack's lock, which a running call holds.
func (s *Session) refuseRunning(what string) error {
	if n := s.running.n.Load(); n > 0 {
		return refusedf("cannot %s files: %d call(s) of this session are still changing files; wait for them to end", what, n)
	}
	if err := s.refusePending(what); err != nil {
		return err
	}
	return s.refuseTasks(what)
}

// refuseTasks refuses while a sub-agent task or a background shell job of
// this session runs (seed 000: active subagents and shell commands block a
// revert): between its calls it holds no call lock, yet it may be about to
// change the files a revert puts back.
func (s *Session) refuseTasks(what string) error {
	recs, err := s.ws.taskRecords(s.ID())
	if err != nil {
		return err
	}
	var run []string
	for _, r := range recs {
		if r.State == TaskRunning {
			run = append(run, r.ID)
		}
	}
	switch len(run) {
	case 0:
		return nil
	case 1:
		return refusedf("cannot %s files: task %s is still running; let it end or cancel it (cairn task SESSION %s --cancel)", what, run[0], run[0])
	}
	return refusedf("cannot %s files: tasks %s are still running; let them end or cancel them", what, strings.Join(run, ", "))
}
