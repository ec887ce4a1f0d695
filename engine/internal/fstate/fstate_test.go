package fstate

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"

	"cairn/internal/vfs"
	"cairn/objects"
)

// ok fails the test on err.
func ok(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestCaptureAndPutBack: a file's state, captured through each sink, is put
// back as it was — content, mode and permission bits, or a link's target,
// or absence — and compares the same as the capture it came from.
func TestCaptureAndPutBack(t *testing.T) {
	ctx := context.Background()
	m := vfs.NewMem()
	m.MkdirAll(".store", 0o700)
	objs := objects.New(m, ".store")
	ws := m
	if err := vfs.WriteFileAtomic(ws, "a.sh", []byte("#!/bin/sh\n")); err != nil {
		t.Fatal(err)
	}
	if err := ws.Chmod("a.sh", 0o750); err != nil {
		t.Fatal(err)
	}
	if err := ws.Symlink("a.sh", "l"); err != nil {
		t.Fatal(err)
	}
	for _, put := range []struct {
		name string
		sink Sink
	}{{"store", StoreSink(ctx, objs)}, {"inline", InlineSink(ctx, objs)}} {
		t.Run(put.name, func(t *testing.T) {
			file, err := Capture(ctx, ws, put.sink, "a.sh", 1<<20)
			ok(t, err)
			link, err := Capture(ctx, ws, put.sink, "l", 1<<20)
			ok(t, err)
			absent, err := Capture(ctx, ws, put.sink, "none", 1<<20)
			ok(t, err)
			if file.Mode != ModeExec || file.Perm != "0750" || link.Mode != ModeLink || absent != nil {
				t.Fatalf("captured %+v, %+v, %+v", file, link, absent)
			}
			if !file.Valid(FormBefore) || !link.Valid(FormBefore) {
				t.Fatalf("captures not valid as a pre-image: %+v %+v", file, link)
			}
			// Overwrite both, then put them back.
			vfs.WriteFileAtomic(ws, "a.sh", []byte("changed"))
			ws.Chmod("a.sh", 0o644)
			ws.Remove("l")
			vfs.WriteFileAtomic(ws, "none", []byte("made"))
			dirs := DirSet{}
			for name, f := range map[string]*State{"a.sh": file, "l": link, "none": absent} {
				if err := Put(ctx, ws, objs, name, f, dirs); err != nil {
					t.Fatalf("put %s: %v", name, err)
				}
			}
			if err := dirs.Sync(ws); err != nil {
				t.Fatal(err)
			}
			for name, f := range map[string]*State{"a.sh": file, "l": link, "none": absent} {
				cur, err := Capture(ctx, ws, HashSink, name, 1<<20)
				ok(t, err)
				if !Same(cur, f) {
					t.Fatalf("%s holds %+v after put back, want %+v", name, cur, f)
				}
			}
			if fi, err := ws.Lstat("a.sh"); err != nil || fi.Mode().Perm() != 0o750 {
				t.Fatalf("a.sh mode %v, want 0750", fi.Mode().Perm())
			}
		})
	}
}

// TestCaptureSkips: what cannot be captured is a skipped state saying why,
// never an error that loses the file.
func TestCaptureSkips(t *testing.T) {
	ctx := context.Background()
	m := vfs.NewMem()
	ok(t, vfs.WriteFileAtomic(m, "big", make([]byte, 100)))
	ok(t, vfs.WriteFileAtomic(m, "small", []byte("s")))
	m.MkdirAll("dir", 0o755)
	for _, tc := range []struct {
		name string
		put  Sink
		skip string
	}{{"big", HashSink, SkipTooLarge}, {"dir", HashSink, SkipNotFile}, {"small", nil, SkipStore}} {
		f, err := Capture(ctx, m, tc.put, tc.name, 10)
		if f == nil || f.Skipped != tc.skip || err == nil || !f.IsSkipped() {
			t.Fatalf("%s: %+v, %v; want skipped %q with its error", tc.name, f, err, tc.skip)
		}
	}
}

// TestSame: states compare by content, mode and, when both record them,
// permission bits; skipped states never compare the same.
func TestSame(t *testing.T) {
	a := Content([]byte("x"), ModeFile)
	b := Content([]byte("x"), ModeFile)
	b.Perm = "0600"
	c := Content([]byte("x"), ModeFile)
	c.Perm = "0644"
	for _, tc := range []struct {
		x, y *State
		same bool
	}{
		{a, b, true}, {b, c, false}, {a, Content([]byte("y"), ModeFile), false},
		{a, Content([]byte("x"), ModeExec), false}, {nil, nil, true}, {a, nil, false},
		{&State{Skipped: SkipTooLarge}, &State{Skipped: SkipTooLarge}, false},
	} {
		if got := Same(tc.x, tc.y); got != tc.same {
			t.Errorf("Same(%+v, %+v) = %v, want %v", tc.x, tc.y, got, tc.same)
		}
	}
}

// TestStageExchangeAndNotFolder: a staged file takes the name's place in
// one swap, leaving the old content under the temp name for the caller;
// a name whose parent is a file cannot be staged (ErrNotFolder) and
// leaves nothing behind.
func TestStageExchangeAndNotFolder(t *testing.T) {
	m := vfs.NewMem()
	vfs.WriteFileAtomic(m, "f", []byte("old"))
	st, err := Stage(m, "f", 0o640, func(w io.Writer) error { _, err := w.Write([]byte("new")); return err })
	if err != nil {
		t.Fatal(err)
	}
	dirs := DirSet{}
	old, err := st.Exchange(m, dirs)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := vfs.ReadFile(m, "f"); err != nil || string(b) != "new" {
		t.Fatalf("f holds %q", b)
	}
	if old != "" {
		if b, err := vfs.ReadFile(m, old); err != nil || string(b) != "old" {
			t.Fatalf("the swapped-out file holds %q", b)
		}
	}
	if !dirs["."] {
		t.Fatalf("dirs %v, want the folder of f", dirs)
	}
	if _, err := Stage(m, "f/g", 0o644, func(io.Writer) error { return nil }); !errors.Is(err, ErrNotFolder) {
		t.Fatalf("stage under a file: %v, want ErrNotFolder", err)
	}
	ents, err := m.ReadDir(".")
	ok(t, err)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if want := 1 + btoi(old != ""); len(names) != want { // f, and the swapped-out file
		t.Fatalf("folder holds %v after a refused stage", names)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestExchangeMissingOrFolder: on the disk and in memory, a staged file
// whose name is missing is renamed into place (no old file to return); one
// whose name is a folder is refused, the folder and what it holds left as
// they were, and the temp file removed.
func TestExchangeMissingOrFolder(t *testing.T) {
	d, err := vfs.OpenDisk(t.TempDir())
	ok(t, err)
	defer d.Close()
	for _, fsys := range []vfs.FS{d, vfs.NewMem()} {
		write := func(w io.Writer) error { _, err := w.Write([]byte("new")); return err }
		st, err := Stage(fsys, "missing", 0o644, write)
		ok(t, err)
		old, err := st.Exchange(fsys, DirSet{})
		if err != nil || old != "" {
			t.Fatalf("%T: a missing name: %q, %v", fsys, old, err)
		}
		if b, err := vfs.ReadFile(fsys, "missing"); err != nil || string(b) != "new" {
			t.Fatalf("%T: the missing name holds %q, %v", fsys, b, err)
		}
		ok(t, fsys.MkdirAll("dir", 0o755))
		ok(t, vfs.WriteFileAtomic(fsys, "dir/inside", []byte("kept")))
		st, err = Stage(fsys, "dir", 0o644, write)
		ok(t, err)
		if _, err := st.Exchange(fsys, DirSet{}); err == nil {
			t.Fatalf("%T: a folder was replaced by a file", fsys)
		}
		if fi, err := fsys.Lstat("dir"); err != nil || !fi.IsDir() {
			t.Fatalf("%T: the folder is gone: %v", fsys, err)
		}
		if b, err := vfs.ReadFile(fsys, "dir/inside"); err != nil || string(b) != "kept" {
			t.Fatalf("%T: the folder's file holds %q, %v", fsys, b, err)
		}
		ents, err := fsys.ReadDir(".")
		ok(t, err)
		if len(ents) != 2 {
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			t.Fatalf("%T: the folder holds %v, a temp file left", fsys, names)
		}
	}
}

// swapsFolderFS swaps a folder with a file and cannot swap them back
// (vfs.ErrSwapped): the rare failure after a folder took a file's name
// under way.
type swapsFolderFS struct{ *vfs.Mem }

func (f swapsFolderFS) Exchange(a, b string) error {
	if err := f.Rename(b, "swap-aside"); err != nil {
		return err
	}
	if err := f.Rename(a, b); err != nil {
		return err
	}
	if err := f.Rename("swap-aside", a); err != nil {
		return err
	}
	return &os.LinkError{Op: "exchange", Old: a, New: b, Err: errors.Join(vfs.ErrSwapped, syscall.EISDIR)}
}

// TestExchangeNotSwappedBack: when a folder was swapped with the staged
// file and could not be swapped back, nothing is renamed or removed: the
// error names where the folder is, and the folder is there.
func TestExchangeNotSwappedBack(t *testing.T) {
	m := vfs.NewMem()
	fsys := swapsFolderFS{m}
	st, err := Stage(fsys, "name", 0o644, func(w io.Writer) error { _, err := w.Write([]byte("new")); return err })
	ok(t, err)
	ok(t, m.MkdirAll("name", 0o755)) // the folder that took the name
	_, err = st.Exchange(fsys, DirSet{})
	if !errors.Is(err, vfs.ErrSwapped) || !strings.Contains(err.Error(), st.tmp) {
		t.Fatalf("exchange: %v; want ErrSwapped naming %s", err, st.tmp)
	}
	if fi, err := m.Lstat(st.tmp); err != nil || !fi.IsDir() {
		t.Fatalf("the folder at %s is gone: %v", st.tmp, err)
	}
	if b, err := vfs.ReadFile(m, "name"); err != nil || string(b) != "new" {
		t.Fatalf("name holds %q, %v", b, err)
	}
}

// Holds is the compare before a put back: the file holds one of the wanted
// states (an absent file matching nil), never when it cannot be read.
func TestHolds(t *testing.T) {
	ctx := context.Background()
	mem := vfs.NewMem()
	ok(t, vfs.WriteFileAtomic(mem, "a.txt", []byte("one")))
	one, two := Content([]byte("one"), ModeFile), Content([]byte("two"), ModeFile)
	for _, c := range []struct {
		rel  string
		want []*State
		held bool
	}{
		{"a.txt", []*State{one}, true},
		{"a.txt", []*State{two, one}, true},
		{"a.txt", []*State{two}, false},
		{"a.txt", []*State{nil}, false},
		{"gone.txt", []*State{nil}, true},
		{"gone.txt", []*State{one}, false},
	} {
		cur, _, held := Holds(ctx, mem, c.rel, 1<<20, c.want...)
		if held != c.held {
			t.Errorf("Holds(%s, %v) = %v (holds %+v)", c.rel, c.want, held, cur)
		}
	}
	faulty := vfs.NewFaulty(mem)
	faulty.Inject(vfs.Rule{Op: vfs.OpRead, Err: syscall.EIO})
	if cur, err, held := Holds(ctx, faulty, "a.txt", 1<<20, one); held || !cur.IsSkipped() || !errors.Is(err, syscall.EIO) {
		t.Fatalf("an unreadable file: %+v %v %v", cur, err, held)
	}
}
