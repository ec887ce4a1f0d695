package ctxsync

import (
	"context"
	"errors"
	"testing"
)

// A waiter gives up when its context ends, without taking the lock; the
// holder's unlock then lets the next one in.
func TestLockContextGivesUp(t *testing.T) {
	var m Mutex
	m.Lock()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- m.LockContext(ctx) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("LockContext after cancel: %v", err)
	}
	if m.TryLock() {
		t.Fatal("TryLock took a held lock")
	}
	m.Unlock()
	if err := m.LockContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	m.Unlock()
	if !m.TryLock() {
		t.Fatal("TryLock on an unlocked mutex failed")
	}
	m.Unlock()
}

// A context that has ended already is refused even when the lock is free.
func TestLockContextEndedContext(t *testing.T) {
	var m Mutex
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := m.LockContext(ctx); err == nil {
		t.Fatal("locked with an ended context")
	}
	if !m.TryLock() {
		t.Fatal("the refused LockContext left the mutex locked")
	}
}

func TestUnlockOfUnlockedPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	var m Mutex
	m.Unlock()
}
