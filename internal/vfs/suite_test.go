package vfs_test

import (
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
