package vfs_test

import (
	"bytes"
	"errors"
	"io/fs"
	"testing"

	"cairn/internal/vfs"
)

// MapFile gives a file's bytes on the disk (mapped) and on Mem (read),
// an empty file as no bytes, a missing one as fs.ErrNotExist; a file
// replaced (renamed over) while mapped leaves the mapped bytes as they
// were.
func TestMapFile(t *testing.T) {
	d, err := vfs.OpenDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, fsys := range []vfs.FS{d, vfs.NewMem()} {
		want := bytes.Repeat([]byte("mark line\n"), 3000)
		if err := vfs.ReplaceFile(fsys, "m", want); err != nil {
			t.Fatal(err)
		}
		b, done, err := vfs.MapFile(fsys, "m")
		if err != nil || !bytes.Equal(b, want) {
			t.Fatalf("%T: %d bytes, %v", fsys, len(b), err)
		}
		if err := vfs.ReplaceFile(fsys, "m", []byte("new")); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, want) {
			t.Fatalf("%T: the bytes mapped changed with the file put in its place", fsys)
		}
		done()
		if err := vfs.ReplaceFile(fsys, "empty", nil); err != nil {
			t.Fatal(err)
		}
		if b, done, err := vfs.MapFile(fsys, "empty"); err != nil || len(b) != 0 {
			t.Fatalf("%T: an empty file: %d bytes, %v", fsys, len(b), err)
		} else {
			done()
		}
		if _, _, err := vfs.MapFile(fsys, "missing"); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%T: a missing file: %v", fsys, err)
		}
	}
}
