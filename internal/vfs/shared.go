package vfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// SharedLocker is an FS that can take a shared lock: any number of owners
// hold one at once, and while any does, Lock (exclusive) on the same name
// is refused with ErrLocked, as a shared one is while an exclusive one is
// held (flock LOCK_SH against LOCK_EX). The workspace's call lock is one:
// every running tool call shares it, and a file revert takes it alone.
type SharedLocker interface {
	LockShared(name string) (Lock, error)
}

// LockShared takes a shared, non-blocking lock on name with fsys's
// SharedLocker, creating the file if needed. It returns ErrLocked (in an
// *fs.PathError) while an exclusive lock is held, and an error wrapping
// errors.ErrUnsupported on an FS without shared locks.
func LockShared(fsys FS, name string) (Lock, error) {
	if x, ok := fsys.(SharedLocker); ok {
		return x.LockShared(name)
	}
	return nil, &fs.PathError{Op: "lock", Path: name, Err: fmt.Errorf("shared locks: %w", errors.ErrUnsupported)}
}

// LockShared takes a shared non-blocking flock on name.
func (d *Disk) LockShared(name string) (Lock, error) {
	return d.lock(name, unix.LOCK_SH)
}

func (f *Fenced) LockShared(name string) (Lock, error) {
	sub, base, done, err := f.at("lock", name)
	if err != nil {
		return nil, err
	}
	defer done()
	l, err := sub.LockShared(base)
	if err != nil {
		return nil, err
	}
	rename(l.File(), name)
	return l, nil
}

func (f *Faulty) LockShared(name string) (Lock, error) {
	if err := f.Check(OpLock, name); err != nil {
		return nil, err
	}
	l, err := LockShared(f.inner, name)
	if err != nil {
		return nil, err
	}
	return &faultyLock{Lock: l, file: &faultyFile{File: l.File(), f: f}}, nil
}

// LockShared takes a shared lock on name within the process: refused while
// Lock holds it, and holding off Lock until every shared owner released.
func (m *Mem) LockShared(name string) (Lock, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	f, err := m.openFile("lock", name, os.O_RDWR|os.O_CREATE, FilePerm)
	if err != nil {
		return nil, err
	}
	if m.locks[f.n] != nil {
		f.closed = true
		return nil, &fs.PathError{Op: "lock", Path: name, Err: ErrLocked}
	}
	if m.shared == nil {
		m.shared = map[*memNode]int{}
	}
	m.shared[f.n]++
	return &memLock{f: f, shared: true}, nil
}

var (
	_ SharedLocker = (*Disk)(nil)
	_ SharedLocker = (*Fenced)(nil)
	_ SharedLocker = (*Faulty)(nil)
	_ SharedLocker = (*Mem)(nil)
)
