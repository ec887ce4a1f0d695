package vfs_test

import (
	"strings"
	"testing"

	"cairn/internal/vfs"
)

// nameTree builds the same small tree, with links inside and outside, on
// fsys.
func nameTree(t testing.TB, fsys vfs.FS) {
	if err := fsys.MkdirAll("a/b", vfs.DirPerm); err != nil {
		t.Fatal(err)
	}
	if err := vfs.WriteFileAtomic(fsys, "a/f", []byte("file")); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{
		"l": "a", "up": "..", "abs": "/etc", "a/b/back": "../..", "a/b/loop": "loop",
		"a/lf": "f", "dang": "nowhere", "a/b/out": "../../../x",
	} {
		if err := fsys.Symlink(target, name); err != nil {
			t.Fatal(err)
		}
	}
}

// FuzzMemNamesLikeDisk checks that Mem resolves every name as the disk
// does: the same names are found, and none outside the root.
func FuzzMemNamesLikeDisk(f *testing.F) {
	for _, s := range []string{".", "a", "a/", "a/f", "a/f/", "a/f/x", "l/f", "l/b/back/a/f", "up", "up/x",
		"abs", "a/b/back/..", "a/b/loop", "a/lf", "dang", "a/b/out", "../a", "/a", "a/../a/f", "a/b/../../a",
		"l/../a", "a//b", "./a/./b", "", "a/b/back/l/lf"} {
		f.Add(s)
	}
	d, err := vfs.OpenDisk(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	defer d.Close()
	m := vfs.NewMem()
	nameTree(f, d)
	nameTree(f, m)
	f.Fuzz(func(t *testing.T, name string) {
		if strings.ContainsRune(name, 0) || len(name) > 256 {
			return // refused by the kernel for reasons Mem need not copy
		}
		for _, follow := range []bool{true, false} {
			stat := vfs.FS.Stat
			if !follow {
				stat = vfs.FS.Lstat
			}
			di, derr := stat(d, name)
			mi, merr := stat(m, name)
			if (derr == nil) != (merr == nil) {
				t.Fatalf("follow %v %q: disk %v, mem %v", follow, name, derr, merr)
			}
			if derr != nil {
				if vfs.IsNotExist(derr) != vfs.IsNotExist(merr) {
					t.Fatalf("follow %v %q: disk %v, mem %v", follow, name, derr, merr)
				}
				continue
			}
			if di.Mode().Type() != mi.Mode().Type() || (di.Mode().IsRegular() && di.Size() != mi.Size()) {
				t.Fatalf("follow %v %q: disk %v %d, mem %v %d", follow, name, di.Mode(), di.Size(), mi.Mode(), mi.Size())
			}
		}
	})
}
