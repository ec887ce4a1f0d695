package vfs_test

import (
	"errors"
	"testing"

	"cairn/internal/vfs"
)

// TestSharedLockFile: a lock file kept open is taken and given back many
// times, shares with other owners, and keeps an exclusive owner out (and is
// kept out by one), on the disk and on a filesystem without open lock
// files. A lock file removed while kept open is opened again by its name,
// so the lock is taken on the file other processes lock.
func TestSharedLockFile(t *testing.T) {
	fsyss := diskAndMem(t)
	for _, fsys := range fsyss {
		l := vfs.OpenSharedLock(fsys, "calls.lock")
		other := vfs.OpenSharedLock(fsys, "calls.lock")
		for range 3 {
			if err := l.TryShared(); err != nil {
				t.Fatalf("%T: %v", fsys, err)
			}
			if err := other.TryShared(); err != nil {
				t.Fatalf("%T: a second owner: %v", fsys, err)
			}
			if _, err := fsys.Lock("calls.lock"); !errors.Is(err, vfs.ErrLocked) {
				t.Fatalf("%T: exclusive while shared: %v", fsys, err)
			}
			must0(t, l.Unlock())
			must0(t, other.Unlock())
			x, err := fsys.Lock("calls.lock")
			if err != nil {
				t.Fatalf("%T: exclusive once given back: %v", fsys, err)
			}
			if err := l.TryShared(); !errors.Is(err, vfs.ErrLocked) {
				t.Fatalf("%T: shared while exclusive: %v", fsys, err)
			}
			must0(t, x.Release())
		}
		must0(t, l.TryShared())
		must0(t, l.Unlock())
		// Removed while kept open: the next lock is on the new file.
		must0(t, fsys.Remove("calls.lock"))
		x, err := fsys.Lock("calls.lock")
		if err != nil {
			t.Fatal(err)
		}
		if err := l.TryShared(); !errors.Is(err, vfs.ErrLocked) {
			t.Fatalf("%T: the removed file was locked, not the new one: %v", fsys, err)
		}
		must0(t, x.Release())
		must0(t, l.TryShared())
		// Removed while held: taken again, the new file is locked too (on
		// the disk), and Unlock gives both back.
		must0(t, fsys.Remove("calls.lock"))
		must0(t, l.TryShared())
		if fsys == fsyss[0] { // on the disk; a Mem's lock is by name and lives in one process
			if x, err := fsys.Lock("calls.lock"); !errors.Is(err, vfs.ErrLocked) {
				if err == nil {
					x.Release()
				}
				t.Fatalf("the file at the name is not locked after the held one was removed: %v", err)
			}
		}
		must0(t, l.Unlock())
		x, err = fsys.Lock("calls.lock")
		if err != nil {
			t.Fatalf("%T: exclusive once given back: %v", fsys, err)
		}
		must0(t, x.Release())
		must0(t, l.Close())
		must0(t, other.Close())
	}
}

func must0(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
