package vfs_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"cairn/internal/vfs"
)

// TestDiskLockThroughRoot: a lock is taken on the file the name leads to
// inside the folder the Disk opened, even once that folder was moved and
// another made at its old path: a second owner of the moved folder is
// refused, and the new folder at the old path gets no lock file.
func TestDiskLockThroughRoot(t *testing.T) {
	for _, c := range []struct {
		name string
		lock func(*vfs.Disk, string) (vfs.Lock, error)
	}{
		{"exclusive", (*vfs.Disk).Lock},
		{"shared", (*vfs.Disk).LockShared},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := t.TempDir()
			old, moved := filepath.Join(base, "state"), filepath.Join(base, "moved")
			must0(t, os.Mkdir(old, 0o700))
			d, err := vfs.OpenDisk(old)
			must0(t, err)
			defer d.Close()
			must0(t, os.Rename(old, moved))
			must0(t, os.Mkdir(old, 0o700))

			l, err := c.lock(d, "x.lock")
			must0(t, err)
			defer l.Release()
			if _, err := os.Lstat(filepath.Join(old, "x.lock")); !os.IsNotExist(err) {
				t.Errorf("a lock file was made outside the folder opened: %v", err)
			}
			other, err := vfs.OpenDisk(moved)
			must0(t, err)
			defer other.Close()
			if l2, err := other.Lock("x.lock"); !errors.Is(err, vfs.ErrLocked) {
				if err == nil {
					l2.Release()
				}
				t.Fatalf("a second owner of the folder's lock file: %v, want vfs.ErrLocked", err)
			}
			must0(t, l.Release())
			l2, err := other.Lock("x.lock")
			must0(t, err)
			must0(t, l2.Release())
		})
	}
}
