package vfs_test

import (
	"testing"

	"cairn/internal/vfs"
)

// TestChmodFile: a file's mode set through its handle on the disk, and by
// its name on a filesystem whose files cannot, is the mode asked for,
// whatever the umask.
func TestChmodFile(t *testing.T) {
	fsyss := diskAndMem(t)
	for _, fsys := range fsyss {
		f, err := vfs.CreateTemp(fsys, ".", "f")
		if err != nil {
			t.Fatal(err)
		}
		if err := vfs.ChmodFile(fsys, f, f.Name(), 0o754); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if fi, err := fsys.Stat(f.Name()); err != nil || fi.Mode().Perm() != 0o754 {
			t.Fatalf("%T: %v, %v", fsys, fi.Mode(), err)
		}
		if _, ok := f.(vfs.Fchmoder); !ok && fsys == fsyss[0] {
			t.Fatalf("a disk file cannot change its mode through its handle")
		}
	}
}
