package vfs_test

import (
	"runtime"
	"testing"

	"cairn/internal/vfs"
)

// TestWriteBackKeepsData: writing a file's data back ahead of its sync
// changes nothing a reader sees, on the disk and on a filesystem that
// cannot (where it does nothing).
func TestWriteBackKeepsData(t *testing.T) {
	fsyss := diskAndMem(t)
	for _, fsys := range fsyss {
		f, err := vfs.CreateTemp(fsys, ".", "f")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte("data")); err != nil {
			t.Fatal(err)
		}
		vfs.WriteBack(f)
		if err := f.Sync(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if b, err := vfs.ReadFile(fsys, f.Name()); err != nil || string(b) != "data" {
			t.Fatalf("%T: %q, %v", fsys, b, err)
		}
		if _, ok := f.(vfs.WriteBacker); !ok && fsys == fsyss[0] && runtime.GOOS == "linux" {
			t.Fatalf("a disk file cannot write back")
		}
	}
}
