package vfs_test

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"testing"

	"cairn/internal/vfs"
)

func TestFaultyWriteAtomicFaults(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.ENOSPC, syscall.EIO} {
		for _, op := range []vfs.Op{vfs.OpCreate, vfs.OpWrite, vfs.OpSync, vfs.OpRename} {
			t.Run(errno.Error()+"/"+op.String(), func(t *testing.T) {
				m := vfs.NewMem()
				f := vfs.NewFaulty(m)
				if err := f.MkdirAll("s", vfs.DirPerm); err != nil {
					t.Fatal(err)
				}
				syncDir(t, f, ".")
				if err := vfs.WriteFileAtomic(f, "s/f", []byte("old")); err != nil {
					t.Fatal(err)
				}
				f.Inject(vfs.Rule{Op: op, Path: "s/*", Count: 1, Err: errno})
				err := vfs.WriteFileAtomic(f, "s/f", []byte("new"))
				if !errors.Is(err, errno) {
					t.Fatalf("WriteFileAtomic = %v, want %v", err, errno)
				}
				// The error names the file written, never its temp file.
				var pe *fs.PathError
				if !errors.As(err, &pe) || pe.Path != "s/f" || strings.Contains(err.Error(), vfs.TempSuffix) {
					t.Fatalf("WriteFileAtomic = %v, want an error naming s/f", err)
				}
				want(t, f, "s/f", "old")
				if ents, err := f.ReadDir("s"); err != nil || len(ents) != 1 {
					t.Fatalf("s = %v %v, want only f", ents, err)
				}
				// Nothing is half-done on disk either.
				m.Crash()
				want(t, m, "s/f", "old")
				// The fault was for one call: it works again.
				if err := vfs.WriteFileAtomic(f, "s/f", []byte("new")); err != nil {
					t.Fatal(err)
				}
				want(t, f, "s/f", "new")
			})
		}
	}
}

func TestFaultyUsesGenericWriteAtomic(t *testing.T) {
	d, err := vfs.OpenDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	f := vfs.NewFaulty(d)
	if err := vfs.WriteFileAtomic(f, "x", []byte("1")); err != nil {
		t.Fatal(err)
	}
	for op, n := range map[vfs.Op]int{vfs.OpCreate: 1, vfs.OpWrite: 1, vfs.OpSync: 2, vfs.OpRename: 1} {
		if got := f.Calls(op); got != n {
			t.Errorf("Calls(%v) = %d, want %d", op, got, n)
		}
	}
	if got := f.Calls(vfs.OpAny); got != 5 {
		t.Errorf("Calls(OpAny) = %d, want 5", got)
	}
	f.Inject(vfs.Rule{Op: vfs.OpSync, Skip: 1, Err: syscall.EIO}) // the SyncDir
	if err := vfs.WriteFileAtomic(f, "x", []byte("2")); !errors.Is(err, syscall.EIO) {
		t.Fatalf("WriteFileAtomic with failing SyncDir = %v", err)
	}
}

func TestFaultyShortWriteWritesNothing(t *testing.T) {
	f := vfs.NewFaulty(vfs.NewMem())
	file, err := f.OpenFile("j", os.O_WRONLY|os.O_CREATE|os.O_APPEND, vfs.FilePerm)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	if _, err := file.Write([]byte("one\n")); err != nil {
		t.Fatal(err)
	}
	f.Inject(vfs.Rule{Op: vfs.OpWrite, Err: syscall.ENOSPC})
	n, err := file.Write([]byte("two\n"))
	if n != 0 || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Write = %d %v, want 0 ENOSPC", n, err)
	}
	want(t, f, "j", "one\n")
	f.Reset()
	if _, err := file.Write([]byte("two\n")); err != nil {
		t.Fatal(err)
	}
	want(t, f, "j", "one\ntwo\n")
}

func TestFaultyRuleSkipCountPath(t *testing.T) {
	f := vfs.NewFaulty(vfs.NewMem())
	f.Inject(vfs.Rule{Op: vfs.OpStat, Path: "a*", Skip: 2, Count: 2})
	var got []bool
	for range 6 {
		_, err := f.Stat("a1")
		got = append(got, err != nil && errors.Is(err, syscall.EIO))
		if _, err := f.Stat("b"); err != nil && !vfs.IsNotExist(err) {
			t.Fatalf("Stat(b) failed by a rule for a*: %v", err)
		}
	}
	wantFail := []bool{false, false, true, true, false, false}
	for i := range got {
		if got[i] != wantFail[i] {
			t.Fatalf("call %d failed %v, want %v (all: %v)", i, got[i], wantFail[i], got)
		}
	}
	if n := f.Calls(vfs.OpStat); n != 12 {
		t.Fatalf("Calls(OpStat) = %d, want 12", n)
	}
}

func TestFaultyOpMapping(t *testing.T) {
	m := vfs.NewMem()
	put(t, m, "f", "data", true)
	f := vfs.NewFaulty(m)
	f.Inject(vfs.Rule{Op: vfs.OpAny, Path: "bad*", Err: syscall.EIO})
	if _, err := f.OpenFile("bad", os.O_RDWR|os.O_CREATE, vfs.FilePerm); !errors.Is(err, syscall.EIO) {
		t.Fatalf("create: %v", err)
	}
	gone(t, m, "bad") // a failed call does not reach the inner FS
	if err := f.MkdirAll("bad", vfs.DirPerm); !errors.Is(err, syscall.EIO) {
		t.Fatalf("mkdir: %v", err)
	}
	if err := f.Rename("f", "bad"); !errors.Is(err, syscall.EIO) {
		t.Fatalf("rename to a matching name: %v", err)
	}
	want(t, m, "f", "data")
	f.Reset()

	file, err := f.OpenFile("f", os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	cases := []struct {
		op   vfs.Op
		call func() error
	}{
		{vfs.OpRead, func() error { _, err := file.Read(make([]byte, 1)); return err }},
		{vfs.OpRead, func() error { _, err := file.ReadAt(make([]byte, 1), 0); return err }},
		{vfs.OpWrite, func() error { _, err := file.Write([]byte("x")); return err }},
		{vfs.OpSync, file.Sync},
		{vfs.OpSync, func() error { return f.SyncDir(".") }},
		{vfs.OpTruncate, func() error { return file.Truncate(0) }},
		{vfs.OpStat, func() error { _, err := file.Stat(); return err }},
		{vfs.OpStat, func() error { _, err := f.Lstat("f"); return err }},
		{vfs.OpOpen, func() error { _, err := f.OpenFile("f", os.O_RDONLY, 0); return err }},
		{vfs.OpCreate, func() error { _, err := vfs.CreateTemp(f, ".", "t"); return err }},
		{vfs.OpReadDir, func() error { _, err := f.ReadDir("."); return err }},
		{vfs.OpRemove, func() error { return f.Remove("f") }},
		{vfs.OpChmod, func() error { return f.Chmod("f", 0o600) }},
		{vfs.OpSymlink, func() error { return f.Symlink("f", "l") }},
		{vfs.OpLock, func() error { _, err := f.Lock("lk"); return err }},
	}
	for _, c := range cases {
		f.Reset()
		f.Inject(vfs.Rule{Op: c.op, Err: syscall.EIO})
		if err := c.call(); !errors.Is(err, syscall.EIO) {
			t.Errorf("%v: %v, want EIO", c.op, err)
		}
	}
	want(t, m, "f", "data")

	// The lock's file is wrapped too.
	f.Reset()
	l, err := f.Lock("lk")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	f.Inject(vfs.Rule{Op: vfs.OpWrite, Path: "lk"})
	if _, err := l.File().Write([]byte("pid")); !errors.Is(err, syscall.EIO) {
		t.Fatalf("lock file write: %v, want EIO (the default)", err)
	}
	if _, err := io.WriteString(file, "ok"); err != nil {
		t.Fatalf("write to another file: %v", err)
	}
}

// TestDiskFileErrorsNameTheFile: an open file's errors name it as it was
// opened, relative to the Disk, as the Disk's own errors do, and never by
// the absolute path an os.Root's file knows itself by.
func TestDiskFileErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	d, err := vfs.OpenDisk(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := vfs.WriteFileAtomic(d, "a.txt", []byte("x")); err != nil {
		t.Fatal(err)
	}
	f, err := d.OpenFile("a.txt", os.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, werr := f.Write([]byte("y")) // opened read-only
	f.Close()
	_, rerr := f.Read(make([]byte, 1))
	_, serr := f.Stat()
	for _, err := range []error{werr, rerr, serr, f.Sync(), f.Truncate(0), f.Close()} {
		var pe *fs.PathError
		if !errors.As(err, &pe) || pe.Path != "a.txt" || strings.Contains(err.Error(), dir) {
			t.Errorf("error %v, want one naming a.txt", err)
		}
	}
}
