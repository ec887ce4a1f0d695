package vfs_test

import (
	"os"
	"path/filepath"
	"testing"

	"cairn/internal/vfs"
	"cairn/internal/vfs/vfstest"
)

func TestDisk(t *testing.T) {
	vfstest.Run(t, func(t *testing.T) vfs.FS {
		d, err := vfs.OpenDisk(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		return d
	})
}

// diskAndMem is a disk folder (closed when t ends) and an empty Mem: the
// two kinds of FS a behaviour with a disk-only fast path is checked on.
func diskAndMem(t *testing.T) []vfs.FS {
	t.Helper()
	d, err := vfs.OpenDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return []vfs.FS{d, vfs.NewMem()}
}

func TestMem(t *testing.T) {
	vfstest.Run(t, func(t *testing.T) vfs.FS { return vfs.NewMem() })
}

func TestFaultyNoRules(t *testing.T) {
	vfstest.Run(t, func(t *testing.T) vfs.FS { return vfs.NewFaulty(vfs.NewMem()) })
}

func TestFaultyOverDisk(t *testing.T) {
	vfstest.Run(t, func(t *testing.T) vfs.FS {
		d, err := vfs.OpenDisk(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		return vfs.NewFaulty(d)
	})
}

// A fenced disk behaves as a disk outside its fences.
func TestFencedDisk(t *testing.T) {
	vfstest.Run(t, func(t *testing.T) vfs.FS {
		dir := t.TempDir()
		for _, sub := range []string{"root", "state"} {
			if err := os.Mkdir(filepath.Join(dir, sub), 0o700); err != nil {
				t.Fatal(err)
			}
		}
		d, err := vfs.OpenDisk(filepath.Join(dir, "root"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		return d.Fence(filepath.Join(dir, "state"), nil)
	})
}
