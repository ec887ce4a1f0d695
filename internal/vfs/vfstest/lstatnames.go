package vfstest

import (
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"cairn/internal/vfs"
)

// testLstatNames: LstatNames gives each name what Lstat gives it (size,
// mode, time, inode where there is one), follows no link, says a missing
// name does not exist, and refuses a name that is not a base name.
func testLstatNames(t *testing.T, fsys vfs.FS) {
	if err := fsys.MkdirAll("d/sub", vfs.DirPerm); err != nil {
		t.Fatal(err)
	}
	writeFile(t, fsys, "d/a", "one")
	writeFile(t, fsys, "d/b", "three")
	writeFile(t, fsys, "d/sub/c", "deeper")
	if err := fsys.Symlink("a", "d/link"); err != nil {
		t.Fatal(err)
	}
	names := []string{"a", "b", "sub", "link", "missing", "sub/c", "..", ""}
	var mu sync.Mutex
	got := make([]fs.FileInfo, len(names))
	errs := make([]error, len(names))
	calls := make([]int, len(names))
	if err := vfs.LstatNames(fsys, "d", names, func(i int, fi fs.FileInfo, err error) {
		mu.Lock()
		defer mu.Unlock()
		got[i], errs[i] = snapshot(fi), err
		calls[i]++
	}); err != nil {
		t.Fatal(err)
	}
	for i, n := range names[:4] {
		want, err := fsys.Lstat("d/" + n)
		if err != nil || errs[i] != nil || calls[i] != 1 {
			t.Fatalf("%s: %v, %v, %d calls", n, err, errs[i], calls[i])
		}
		fi := got[i]
		if fi.Size() != want.Size() || fi.Mode() != want.Mode() || !fi.ModTime().Equal(want.ModTime()) {
			t.Errorf("%s: LstatNames %v %v %v, Lstat %v %v %v", n, fi.Size(), fi.Mode(), fi.ModTime(), want.Size(), want.Mode(), want.ModTime())
		}
		if x, ok := fi.(vfs.Inoder); ok && x.Ino() == 0 {
			t.Errorf("%s: inode 0", n)
		}
	}
	if got[3].Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was followed: %v", got[3].Mode())
	}
	if !vfs.IsNotExist(errs[4]) {
		t.Errorf("missing: %v", errs[4])
	}
	for i := 5; i < len(names); i++ {
		if errs[i] == nil || calls[i] != 1 {
			t.Errorf("%q is not a base name, yet: %v, %d calls", names[i], errs[i], calls[i])
		}
	}
	testLstatNamesMany(t, fsys)
	if err := vfs.LstatNames(fsys, "nofolder", []string{"a"}, func(int, fs.FileInfo, error) {}); err == nil {
		// A missing folder is the folder's error, or each name's: either is fine,
		// as long as nothing is found.
		var found bool
		vfs.LstatNames(fsys, "nofolder", []string{"a"}, func(_ int, fi fs.FileInfo, err error) { found = err == nil })
		if found {
			t.Error("a name in a missing folder was found")
		}
	}
}

// testLstatNamesMany: over enough names to be stat'ed on several threads,
// each name gets its own file's size, time and inode, as Lstat gives them.
func testLstatNamesMany(t *testing.T, fsys vfs.FS) {
	if err := fsys.MkdirAll("many", vfs.DirPerm); err != nil {
		t.Fatal(err)
	}
	names := make([]string, 1500)
	for i := range names {
		names[i] = fmt.Sprintf("f%04d.json", i)
		writeFile(t, fsys, "many/"+names[i], strings.Repeat("x", i))
	}
	got := make([]fs.FileInfo, len(names))
	if err := vfs.LstatNames(fsys, "many", names, func(i int, fi fs.FileInfo, err error) {
		if err != nil {
			t.Errorf("%s: %v", names[i], err)
		}
		got[i] = snapshot(fi)
	}); err != nil {
		t.Fatal(err)
	}
	for i, n := range names {
		want, err := fsys.Lstat("many/" + n)
		if err != nil || got[i] == nil {
			t.Fatalf("%s: %v", n, err)
		}
		if got[i].Name() != n || got[i].Size() != int64(i) || got[i].Mode() != want.Mode() || !got[i].ModTime().Equal(want.ModTime()) {
			t.Fatalf("%s: LstatNames %v %v %v %v, Lstat %v %v %v", n, got[i].Name(), got[i].Size(), got[i].Mode(), got[i].ModTime(), want.Size(), want.Mode(), want.ModTime())
		}
		st, ok := want.Sys().(*syscall.Stat_t)
		x, ok2 := got[i].(vfs.Inoder)
		if ok && ok2 && x.Ino() != uint64(st.Ino) {
			t.Fatalf("%s: inode %d, Lstat %d", n, x.Ino(), st.Ino)
		}
	}
}

// snapshot is what fi says now: LstatNames's infos are only the callback's.
func snapshot(fi fs.FileInfo) fs.FileInfo {
	if fi == nil {
		return nil
	}
	s := fileInfo{name: fi.Name(), size: fi.Size(), mode: fi.Mode(), mtime: fi.ModTime(), sys: fi.Sys()}
	if x, ok := fi.(vfs.Inoder); ok {
		return inoInfo{s, x.Ino()}
	}
	return s
}

type fileInfo struct {
	name  string
	size  int64
	mode  fs.FileMode
	mtime time.Time
	sys   any
}

func (f fileInfo) Name() string       { return f.name }
func (f fileInfo) Size() int64        { return f.size }
func (f fileInfo) Mode() fs.FileMode  { return f.mode }
func (f fileInfo) ModTime() time.Time { return f.mtime }
func (f fileInfo) IsDir() bool        { return f.mode.IsDir() }
func (f fileInfo) Sys() any           { return f.sys }

type inoInfo struct {
	fileInfo
	ino uint64
}

func (f inoInfo) Ino() uint64 { return f.ino }
