package vfs

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A FIFO is refused at once by every way Disk opens a file, for reading,
// appending or locking, rather than waited on for a writer or a reader.
func TestDiskRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "p"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := OpenDisk(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, flag := range []int{os.O_RDONLY, os.O_WRONLY | os.O_APPEND, os.O_RDWR | os.O_CREATE} {
		if f, err := d.OpenFile("p", flag, 0o600); !errors.Is(err, ErrNotRegular) {
			if f != nil {
				f.Close()
			}
			t.Errorf("OpenFile(p, %#o) = %v, want ErrNotRegular", flag, err)
		}
	}
	if _, err := ReadFile(d, "p"); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadFile(p) = %v, want ErrNotRegular", err)
	}
	if l, err := d.Lock("p"); !errors.Is(err, ErrNotRegular) {
		if l != nil {
			l.Release()
		}
		t.Errorf("Lock(p) = %v, want ErrNotRegular", err)
	}
	// A regular file and a folder still open.
	if b, err := ReadFile(d, "f"); err != nil || string(b) != "x" {
		t.Errorf("ReadFile(f) = %q, %v", b, err)
	}
	if f, err := d.OpenFile(".", os.O_RDONLY, 0); err != nil {
		t.Errorf("OpenFile(.) = %v", err)
	} else {
		f.Close()
	}
}

// A FIFO in a folder's place is refused at once too.
func TestDiskFIFOAsFolder(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "p"), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := OpenDisk(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := d.ReadDir("p"); !errors.Is(err, syscall.ENOTDIR) {
		t.Errorf("ReadDir(p) = %v, want ENOTDIR", err)
	}
	if err := d.SyncDir("p"); !errors.Is(err, syscall.ENOTDIR) {
		t.Errorf("SyncDir(p) = %v, want ENOTDIR", err)
	}
	if err := d.Exchange("p/a", "p/b"); err == nil {
		t.Error("Exchange in p worked")
	}
}
