package engine

import (
	"context"
	"errors"

	"cairn/engine/internal/remote"
	"cairn/internal/vfs"
	"cairn/objects"
)

// link is the default remote (remote.Link), opened once for leases and
// fetching; nil when none is set or the store is ephemeral.
func (s *Store) link() *remote.Link {
	if s.ephemeral {
		return nil
	}
	return s.remote.Default(s.fsys)
}

// LeaseUnchecked reports the default remote when this program cannot
// open it because it was linked without its provider (a cloud remote in a
// program that imports none of engine/remotes, such as the hook program):
// every open of a session here would go on without checking its lease
// there, with a notice. A program that must keep one owner across
// machines hands the work to one that has the provider instead (the hook
// program hands it to the cairn command beside it). No remote, an
// ephemeral store, or a remote this program opens: ok is false.
func (s *Store) LeaseUnchecked() (r Remote, ok bool) {
	// The store's link reads the remotes once for this check and for the
	// session's open after it.
	if l := s.link(); l != nil && errors.Is(l.Err, remote.ErrNotBuilt) {
		return l.Remote, true
	}
	return Remote{}, false
}

// fetcher is what a workspace's object store asks for an object it lacks:
// the default remote, when one is set.
func (s *Store) fetcher() objects.Fetcher {
	if l := s.link(); l != nil {
		return l.Fetcher()
	}
	return nil
}

// leasedLock is a session's lock here and its lease on the remote: its
// Release lets the lease go first.
type leasedLock struct {
	vfs.Lock
	held *remote.Held
}

func (l *leasedLock) Release() error {
	remote.ReleaseHeld(l.held)
	return l.Lock.Release()
}

// lease checks session id's lease on the default remote once its lock
// here is held, and wraps the lock so that its release lets the lease go
// (remote.Link.Lease says when none could be checked). Another machine's
// live lease is a *BusyError naming the machine and the lease's age.
func (w *Workspace) lease(ctx context.Context, id string, l vfs.Lock, notice func(string)) (vfs.Lock, error) {
	link := w.s.link()
	if link == nil {
		return l, nil
	}
	say := func(msg string) {
		if notice != nil {
			notice(msg)
		}
	}
	h, err := link.Lease(ctx, id, w.s.now, say)
	var busy *remote.BusyError
	if errors.As(err, &busy) {
		// l comes back with the refusal: the caller releases the lock it
		// holds, whatever it keeps of the answer.
		return l, &BusyError{ID: id, Machine: busy.Machine, Host: busy.Host, Age: busy.Age}
	}
	if err != nil || h == nil {
		return l, nil
	}
	return &leasedLock{Lock: l, held: h}, nil
}
