package vfs_test

import (
	"testing"

	"cairn/internal/vfs"
)

// TestIsEscape: a name through a link that leads outside the root, and a
// name climbing out with "..", are escapes on the disk (os.Root's own
// error) and in a Mem alike; a missing file is not.
func TestIsEscape(t *testing.T) {
	for _, fsys := range diskAndMem(t) {
		if err := fsys.Symlink("/", "out"); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"out/x", "../x"} {
			if _, err := fsys.Lstat(name); !vfs.IsEscape(err) {
				t.Fatalf("%T: Lstat %s: %v, want an escape", fsys, name, err)
			}
		}
		if _, err := fsys.Lstat("nope"); err == nil || vfs.IsEscape(err) {
			t.Fatalf("%T: Lstat of a missing file: %v", fsys, err)
		}
	}
}
