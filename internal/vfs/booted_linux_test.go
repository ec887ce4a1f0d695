package vfs

import (
	"testing"
	"time"
)

// TestDiskBooted: the machine started before now, and before a file
// written now.
func TestDiskBooted(t *testing.T) {
	d, err := OpenDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b, ok := Booted(d)
	if !ok || !b.Before(time.Now()) {
		t.Fatalf("Booted: %v %v", b, ok)
	}
	if err := WriteFileAtomic(d, "f", []byte("x")); err != nil {
		t.Fatal(err)
	}
	fi, err := d.Stat("f")
	if err != nil || !fi.ModTime().After(b) {
		t.Fatalf("a file written now is not after the start: %v %v", fi, err)
	}
}
