package vfs

import (
	"errors"
	"testing"
)

// TestLockShared: shared locks coexist, an exclusive one is refused while
// any is held and taken once all are released, and a shared one is refused
// while the exclusive one is held — on Mem and on the disk.
func TestLockShared(t *testing.T) {
	dir := t.TempDir()
	d, err := OpenDisk(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for name, fsys := range map[string]FS{"mem": NewMem(), "disk": d, "faulty": NewFaulty(NewMem())} {
		t.Run(name, func(t *testing.T) {
			a, err := LockShared(fsys, "calls.lock")
			if err != nil {
				t.Fatal(err)
			}
			b, err := LockShared(fsys, "calls.lock")
			if err != nil {
				t.Fatalf("a second shared lock: %v", err)
			}
			if _, err := fsys.Lock("calls.lock"); !errors.Is(err, ErrLocked) {
				t.Fatalf("exclusive while shared: %v", err)
			}
			a.Release()
			if _, err := fsys.Lock("calls.lock"); !errors.Is(err, ErrLocked) {
				t.Fatalf("exclusive while one shared remains: %v", err)
			}
			b.Release()
			x, err := fsys.Lock("calls.lock")
			if err != nil {
				t.Fatalf("exclusive once all released: %v", err)
			}
			if _, err := LockShared(fsys, "calls.lock"); !errors.Is(err, ErrLocked) {
				t.Fatalf("shared while exclusive: %v", err)
			}
			x.Release()
			c, err := LockShared(fsys, "calls.lock")
			if err != nil {
				t.Fatal(err)
			}
			c.Release()
		})
	}
}
