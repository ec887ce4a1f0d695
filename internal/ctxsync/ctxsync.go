// Package ctxsync has a mutex whose Lock can give up when a context ends.
//
// A sync.Mutex cannot be waited for with a deadline or a cancel: a
// goroutine blocked in Lock stays blocked until the holder unlocks. Where
// the holder may be waiting for that very goroutine to end (a call that
// waits for a background job its owner cancelled, while the job waits for
// the call's lock), the wait has to end with the context instead.
package ctxsync

import (
	"context"
	"sync"
)

// Mutex is a mutual exclusion lock. Its zero value is unlocked and ready
// to use; it must not be copied after first use.
type Mutex struct {
	once sync.Once
	ch   chan struct{} // holds one value while locked
}

func (m *Mutex) c() chan struct{} {
	m.once.Do(func() { m.ch = make(chan struct{}, 1) })
	return m.ch
}

// Lock locks m, waiting as long as it takes.
func (m *Mutex) Lock() { m.c() <- struct{}{} }

// LockContext locks m, or returns ctx's error when ctx ends first (m is
// then not locked by this call).
func (m *Mutex) LockContext(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case m.c() <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TryLock locks m if it is unlocked and reports whether it did.
func (m *Mutex) TryLock() bool {
	select {
	case m.c() <- struct{}{}:
		return true
	default:
		return false
	}
}

// Unlock unlocks m. Unlocking an unlocked Mutex panics, as sync.Mutex's
// does.
func (m *Mutex) Unlock() {
	select {
	case <-m.c():
	default:
		panic("ctxsync: unlock of unlocked mutex")
	}
}
