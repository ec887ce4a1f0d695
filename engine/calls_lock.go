package engine

import (
	"context"
	"errors"
	"fmt"

	"cairn/engine/internal/callrec"
	"cairn/engine/internal/tasks"
	"cairn/internal/vfs"
)

// The workspace call lock, workspaces/<key>/calls.lock (its rules:
// engine/internal/callrec/lock.go): every file-tool call and every
// recorded call holds it shared; a file revert or unrevert takes it
// alone, without waiting.

// callsLockName is the workspace's call lock.
func callsLockName(dir string) string { return callrec.LockName(dir) }

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
	dir := w.madeDir()
	remake := func() bool { return w.ensure() == nil }
	if dir == "" {
		if err := w.ensure(); err != nil {
			return nil, noCallLock(err)
		}
		dir, remake = w.madeDir(), nil
	}
	s.running.n.Add(1)
	cl := w.s.callLock(dir)
	if err := cl.Take(ctx, remake); err != nil {
		s.running.n.Add(-1)
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return nil, err
		}
		return nil, noCallLock(err)
	}
	return func() {
		cl.Give()
		s.running.n.Add(-1)
	}, nil
}

// noCallLock refuses a call whose workspace call lock cannot be taken for
// a reason other than a file revert holding it.
func noCallLock(err error) error {
	return refusedf("the workspace call lock cannot be taken (%w): a call runs only under it, so that no file revert of another session runs meanwhile", err)
}

// callLock returns workspace folder dir's call lock, kept open by the
// store (callrec.Lock).
func (s *Store) callLock(dir string) *callrec.Lock {
	if l, ok := s.callLocks.Load(dir); ok {
		return l.(*callrec.Lock)
	}
	l, _ := s.callLocks.LoadOrStore(dir, callrec.NewLock(s.fsys, dir))
	return l.(*callrec.Lock)
}

// closeCallLocks closes every call lock's file at the store's close
// (callrec.Lock.Close).
func (s *Store) closeCallLocks() {
	s.callLocks.Range(func(_, v any) bool {
		v.(*callrec.Lock).Close()
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
	// With the context: the call holding it may be waiting for this one
	// to end (a shell line waiting for a background job it cancelled,
	// while the job waits here to begin).
	if err := s.snaps.mu.LockContext(ctx); err != nil {
		endCall()
		return nil, err
	}
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
// this session runs (tasks.RefuseRunning).
func (s *Session) refuseTasks(what string) error {
	recs, err := s.ws.taskRecords(s.ID())
	if err != nil {
		return err
	}
	return tasks.RefuseRunning(what, recs)
}
