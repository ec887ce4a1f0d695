// Package vfstest holds the conformance suite every vfs.FS must pass, so the
// in-memory and error-injecting filesystems behave like the disk.
package vfstest

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"cairn/internal/vfs"
)

// Run runs the suite; newFS returns an empty FS for each subtest.
func Run(t *testing.T, newFS func(t *testing.T) vfs.FS) {
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, fsys vfs.FS)
	}{
		{"CreateReadWrite", testCreateReadWrite},
		{"Errors", testErrors},
		{"Append", testAppend},
		{"TruncateSeekReadAt", testTruncateSeekReadAt},
		{"StatModTime", testStatModTime},
		{"RenameReplace", testRenameReplace},
		{"Exchange", testExchange},
		{"Remove", testRemove},
		{"ReadDirSorted", testReadDirSorted},
		{"MkdirAll", testMkdirAll},
		{"Symlink", testSymlink},
		{"Chmod", testChmod},
		{"Umask", testUmask},
		{"Lock", testLock},
		{"Escapes", testEscapes},
		{"SymlinkOutside", testSymlinkOutside},
		{"WriteAtomic", testWriteAtomic},
		{"SweepTemps", testSweepTemps},
		{"CreateTemp", testCreateTemp},
		{"Concurrent", testConcurrent},
		{"LstatNames", testLstatNames},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newFS(t)) })
	}
}

func writeFile(t *testing.T, fsys vfs.FS, name, data string) {
	t.Helper()
	f, err := fsys.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, vfs.FilePerm)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(f, data); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func wantFile(t *testing.T, fsys vfs.FS, name, want string) {
	t.Helper()
	got, err := vfs.ReadFile(fsys, name)
	if err != nil {
		t.Fatalf("read %s: %v", name, err)
	}
	if string(got) != want {
		t.Fatalf("%s = %q, want %q", name, got, want)
	}
}

func wantNotExist(t *testing.T, fsys vfs.FS, name string) {
	t.Helper()
	if _, err := fsys.Lstat(name); !vfs.IsNotExist(err) {
		t.Fatalf("lstat %s: %v, want not exist", name, err)
	}
}

func names(t *testing.T, fsys vfs.FS, dir string) []string {
	t.Helper()
	ents, err := fsys.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ns []string
	for _, e := range ents {
		ns = append(ns, e.Name())
	}
	return ns
}

func testCreateReadWrite(t *testing.T, fsys vfs.FS) {
	writeFile(t, fsys, "a", "hello")
	wantFile(t, fsys, "a", "hello")
	f, err := fsys.OpenFile("a", os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Name() != "a" {
		t.Fatalf("Name = %q", f.Name())
	}
	buf := make([]byte, 2)
	if n, err := f.Read(buf); n != 2 || err != nil || string(buf) != "he" {
		t.Fatalf("Read = %d %v %q", n, err, buf)
	}
	if _, err := f.Write([]byte("LL")); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	wantFile(t, fsys, "a", "heLLo")
	if rest, err := io.ReadAll(f); err != nil || string(rest) != "o" {
		t.Fatalf("ReadAll = %q %v", rest, err)
	}
	if n, err := f.Read(buf); n != 0 || !errors.Is(err, io.EOF) {
		t.Fatalf("Read at end = %d %v", n, err)
	}
	// O_TRUNC empties; a read-only handle cannot write.
	writeFile(t, fsys, "a", "x")
	wantFile(t, fsys, "a", "x")
	r, err := fsys.OpenFile("a", os.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Write([]byte("y")); err == nil {
		t.Fatal("write on read-only handle succeeded")
	}
	wantFile(t, fsys, "a", "x")
}

func testErrors(t *testing.T, fsys vfs.FS) {
	_, err := fsys.OpenFile("missing", os.O_RDONLY, 0)
	var pe *fs.PathError
	if !vfs.IsNotExist(err) || !errors.As(err, &pe) {
		t.Fatalf("open missing: %v, want *fs.PathError not exist", err)
	}
	if _, err := fsys.Stat("missing"); !vfs.IsNotExist(err) {
		t.Fatalf("stat missing: %v", err)
	}
	if _, err := fsys.ReadDir("missing"); !vfs.IsNotExist(err) {
		t.Fatalf("readdir missing: %v", err)
	}
	if err := fsys.Remove("missing"); !vfs.IsNotExist(err) {
		t.Fatalf("remove missing: %v", err)
	}
	if err := fsys.Rename("missing", "b"); !vfs.IsNotExist(err) {
		t.Fatalf("rename missing: %v", err)
	}
	if _, err := fsys.OpenFile("nodir/x", os.O_RDWR|os.O_CREATE, vfs.FilePerm); !vfs.IsNotExist(err) {
		t.Fatalf("create in missing folder: %v", err)
	}
	writeFile(t, fsys, "a", "1")
	if _, err := fsys.OpenFile("a", os.O_RDWR|os.O_CREATE|os.O_EXCL, vfs.FilePerm); !vfs.IsExist(err) {
		t.Fatalf("O_EXCL on existing: %v", err)
	}
	if _, err := fsys.OpenFile("a/x", os.O_RDONLY, 0); err == nil {
		t.Fatal("open through a file succeeded")
	}
	if err := fsys.Symlink("x", "a"); !vfs.IsExist(err) {
		t.Fatalf("symlink over file: %v", err)
	}
	wantFile(t, fsys, "a", "1")
}

func testAppend(t *testing.T, fsys vfs.FS) {
	writeFile(t, fsys, "j", "one\n")
	f, err := fsys.OpenFile("j", os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{"two\n", "three\n"} {
		if _, err := io.WriteString(f, l); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	wantFile(t, fsys, "j", "one\ntwo\nthree\n")
}

func testTruncateSeekReadAt(t *testing.T, fsys vfs.FS) {
	writeFile(t, fsys, "t", "0123456789")
	f, err := fsys.OpenFile("t", os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 3)
	if n, err := f.ReadAt(buf, 4); n != 3 || err != nil || string(buf) != "456" {
		t.Fatalf("ReadAt = %d %v %q", n, err, buf)
	}
	if n, err := f.ReadAt(buf, 8); n != 2 || !errors.Is(err, io.EOF) || string(buf[:n]) != "89" {
		t.Fatalf("ReadAt past end = %d %v %q", n, err, buf[:n])
	}
	if pos, err := f.Seek(-2, io.SeekEnd); pos != 8 || err != nil {
		t.Fatalf("Seek end = %d %v", pos, err)
	}
	if pos, err := f.Seek(-3, io.SeekCurrent); pos != 5 || err != nil {
		t.Fatalf("Seek current = %d %v", pos, err)
	}
	if _, err := f.Seek(-1, io.SeekStart); err == nil {
		t.Fatal("Seek before start succeeded")
	}
	if err := f.Truncate(4); err != nil {
		t.Fatal(err)
	}
	wantFile(t, fsys, "t", "0123")
	// Writing past the end after a truncate leaves zeros in the gap.
	if _, err := f.Seek(6, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	wantFile(t, fsys, "t", "0123\x00\x00x")
	if err := f.Truncate(9); err != nil {
		t.Fatal(err)
	}
	fi, err := f.Stat()
	if err != nil || fi.Size() != 9 {
		t.Fatalf("Stat after grow = %v %v", fi, err)
	}
}

func testStatModTime(t *testing.T, fsys vfs.FS) {
	writeFile(t, fsys, "s", "abc")
	fi, err := fsys.Stat("s")
	if err != nil {
		t.Fatal(err)
	}
	if fi.Name() != "s" || fi.Size() != 3 || fi.IsDir() || !fi.Mode().IsRegular() || fi.Mode().Perm() != vfs.FilePerm {
		t.Fatalf("Stat = %v %d %v %v", fi.Name(), fi.Size(), fi.IsDir(), fi.Mode())
	}
	before := fi.ModTime()
	f, err := fsys.OpenFile("s", os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("d")); err != nil {
		t.Fatal(err)
	}
	fi2, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if fi2.Size() != 4 || fi2.ModTime().Before(before) {
		t.Fatalf("after write: size %d mtime %v before %v", fi2.Size(), fi2.ModTime(), before)
	}
	if err := fsys.MkdirAll("d", vfs.DirPerm); err != nil {
		t.Fatal(err)
	}
	di, err := fsys.Stat("d")
	if err != nil || !di.IsDir() || di.Mode()&fs.ModeDir == 0 || di.Mode().Perm() != vfs.DirPerm {
		t.Fatalf("Stat dir = %v %v", di, err)
	}
	ri, err := fsys.Stat(".")
	if err != nil || !ri.IsDir() {
		t.Fatalf("Stat . = %v %v", ri, err)
	}
}

func testRenameReplace(t *testing.T, fsys vfs.FS) {
	writeFile(t, fsys, "old", "new content")
	writeFile(t, fsys, "dst", "old content")
	if err := fsys.Rename("old", "dst"); err != nil {
		t.Fatal(err)
	}
	wantFile(t, fsys, "dst", "new content")
	wantNotExist(t, fsys, "old")
	if err := fsys.MkdirAll("sub", vfs.DirPerm); err != nil {
		t.Fatal(err)
	}
	if err := fsys.Rename("dst", "sub/moved"); err != nil {
		t.Fatal(err)
	}
	wantFile(t, fsys, "sub/moved", "new content")
	if err := fsys.Rename("sub", "sub2"); err != nil {
		t.Fatal(err)
	}
	wantFile(t, fsys, "sub2/moved", "new content")
	if err := fsys.Rename("sub2", "sub2/inner"); err == nil {
		t.Fatal("rename of a folder into itself succeeded")
	}
	// An open handle keeps reading the renamed file.
	f, err := fsys.OpenFile("sub2/moved", os.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := fsys.Rename("sub2/moved", "back"); err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(f); err != nil || string(b) != "new content" {
		t.Fatalf("read renamed handle = %q %v", b, err)
	}
}

// testExchange: two names of one folder swap their files, a link among
// them; a missing name, names in two folders, or a folder is refused and
// changes nothing. A filesystem without exchange says ErrUnsupported.
func testExchange(t *testing.T, fsys vfs.FS) {
	writeFile(t, fsys, "a", "content of a")
	writeFile(t, fsys, "b", "content of b")
	err := vfs.Exchange(fsys, "a", "b")
	if errors.Is(err, errors.ErrUnsupported) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	wantFile(t, fsys, "a", "content of b")
	wantFile(t, fsys, "b", "content of a")
	if err := fsys.Symlink("a", "l"); err != nil {
		t.Fatal(err)
	}
	if err := vfs.Exchange(fsys, "l", "b"); err != nil {
		t.Fatal(err)
	}
	if target, err := fsys.Readlink("b"); err != nil || target != "a" {
		t.Fatalf("b after exchange with a link: %q %v", target, err)
	}
	wantFile(t, fsys, "l", "content of a")
	if err := fsys.MkdirAll("d", vfs.DirPerm); err != nil {
		t.Fatal(err)
	}
	writeFile(t, fsys, "d/x", "x")
	for _, c := range [][2]string{{"a", "missing"}, {"a", "d/x"}, {"../a", "b"}, {"a", "d"}, {"d", "a"}} {
		if err := vfs.Exchange(fsys, c[0], c[1]); err == nil {
			t.Errorf("exchange %s %s succeeded", c[0], c[1])
		}
	}
	wantFile(t, fsys, "a", "content of b")
	wantFile(t, fsys, "d/x", "x")
	wantNotExist(t, fsys, "missing")
}

func testRemove(t *testing.T, fsys vfs.FS) {
	writeFile(t, fsys, "f", "x")
	if err := fsys.MkdirAll("d/e", vfs.DirPerm); err != nil {
		t.Fatal(err)
	}
	if err := fsys.Remove("d"); err == nil {
		t.Fatal("remove of non-empty folder succeeded")
	}
	if err := fsys.Remove("f"); err != nil {
		t.Fatal(err)
	}
	wantNotExist(t, fsys, "f")
	if err := fsys.Remove("d/e"); err != nil {
		t.Fatal(err)
	}
	if err := fsys.Remove("d"); err != nil {
		t.Fatal(err)
	}
	if got := names(t, fsys, "."); len(got) != 0 {
		t.Fatalf("left %v", got)
	}
}

func testReadDirSorted(t *testing.T, fsys vfs.FS) {
	for _, n := range []string{"c", "a", "B", "b", ".x"} {
		writeFile(t, fsys, n, n)
	}
	if err := fsys.MkdirAll("dir", vfs.DirPerm); err != nil {
		t.Fatal(err)
	}
	if err := fsys.Symlink("a", "link"); err != nil {
		t.Fatal(err)
	}
	ents, err := fsys.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
		switch e.Name() {
		case "dir":
			if !e.IsDir() {
				t.Errorf("dir: IsDir false")
			}
		case "link":
			if e.Type()&fs.ModeSymlink == 0 {
				t.Errorf("link: type %v", e.Type())
			}
		default:
			if !e.Type().IsRegular() {
				t.Errorf("%s: type %v", e.Name(), e.Type())
			}
			info, err := e.Info()
			if err != nil || info.Size() != int64(len(e.Name())) {
				t.Errorf("%s: Info %v %v", e.Name(), info, err)
			}
		}
	}
	want := []string{".x", "B", "a", "b", "c", "dir", "link"}
	if !slices.Equal(got, want) {
		t.Fatalf("ReadDir = %v, want %v", got, want)
	}
	if _, err := fsys.ReadDir("a"); err == nil {
		t.Fatal("ReadDir of a file succeeded")
	}
}

func testMkdirAll(t *testing.T, fsys vfs.FS) {
	if err := fsys.MkdirAll("a/b/c", vfs.DirPerm); err != nil {
		t.Fatal(err)
	}
	if err := fsys.MkdirAll("a/b/c", vfs.DirPerm); err != nil {
		t.Fatalf("MkdirAll of existing: %v", err)
	}
	if err := fsys.MkdirAll(".", vfs.DirPerm); err != nil {
		t.Fatalf("MkdirAll .: %v", err)
	}
	writeFile(t, fsys, "a/b/c/f", "x")
	wantFile(t, fsys, "a/b/c/f", "x")
	if err := fsys.MkdirAll("a/b/c/f/g", vfs.DirPerm); err == nil {
		t.Fatal("MkdirAll through a file succeeded")
	}
	if err := fsys.MkdirAll("a/b/c/f", vfs.DirPerm); err == nil {
		t.Fatal("MkdirAll over a file succeeded")
	}
	if got := names(t, fsys, "a/b"); !slices.Equal(got, []string{"c"}) {
		t.Fatalf("a/b = %v", got)
	}
}

func testSymlink(t *testing.T, fsys vfs.FS) {
	if err := fsys.MkdirAll("d", vfs.DirPerm); err != nil {
		t.Fatal(err)
	}
	writeFile(t, fsys, "d/target", "through the link")
	if err := fsys.Symlink("d/target", "l"); err != nil {
		t.Fatal(err)
	}
	if err := fsys.Symlink("d", "ld"); err != nil {
		t.Fatal(err)
	}
	if err := fsys.Symlink("../d/target", "d/up"); err != nil {
		t.Fatal(err)
	}
	if got, err := fsys.Readlink("l"); err != nil || got != "d/target" {
		t.Fatalf("Readlink = %q %v", got, err)
	}
	if _, err := fsys.Readlink("d/target"); err == nil {
		t.Fatal("Readlink of a file succeeded")
	}
	wantFile(t, fsys, "l", "through the link")
	wantFile(t, fsys, "ld/target", "through the link")
	wantFile(t, fsys, "d/up", "through the link")
	li, err := fsys.Lstat("l")
	if err != nil || li.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("Lstat = %v %v", li, err)
	}
	si, err := fsys.Stat("l")
	if err != nil || !si.Mode().IsRegular() || si.Size() != int64(len("through the link")) {
		t.Fatalf("Stat = %v %v", si, err)
	}
	// Writing through the link writes the target; removing the link
	// leaves it.
	writeFile(t, fsys, "l", "changed")
	wantFile(t, fsys, "d/target", "changed")
	if err := fsys.Remove("l"); err != nil {
		t.Fatal(err)
	}
	wantFile(t, fsys, "d/target", "changed")
	// A dangling link: Lstat sees it, Stat does not.
	if err := fsys.Symlink("nowhere", "dangling"); err != nil {
		t.Fatal(err)
	}
	if _, err := fsys.Lstat("dangling"); err != nil {
		t.Fatal(err)
	}
	if _, err := fsys.Stat("dangling"); !vfs.IsNotExist(err) {
		t.Fatalf("Stat dangling: %v", err)
	}
}

// testUmask: a new file and folder lose the bits of vfs.Umask, and Chmod
// does not.
func testUmask(t *testing.T, fsys vfs.FS) {
	mask := vfs.Umask(fsys)
	f, err := fsys.OpenFile("f", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if fi, err := fsys.Stat("f"); err != nil || fi.Mode().Perm() != 0o666&^mask {
		t.Fatalf("new file with umask %03o: %v %v", mask, fi, err)
	}
	if err := fsys.MkdirAll("d", 0o777); err != nil {
		t.Fatal(err)
	}
	if fi, err := fsys.Stat("d"); err != nil || fi.Mode().Perm() != 0o777&^mask {
		t.Fatalf("new folder with umask %03o: %v %v", mask, fi, err)
	}
	if err := fsys.Chmod("f", 0o666); err != nil {
		t.Fatal(err)
	}
	if fi, _ := fsys.Stat("f"); fi.Mode().Perm() != 0o666 {
		t.Fatalf("chmod 666 with umask %03o: %v", mask, fi.Mode())
	}
}

func testChmod(t *testing.T, fsys vfs.FS) {
	writeFile(t, fsys, "f", "x")
	if err := fsys.Chmod("f", 0o400); err != nil {
		t.Fatal(err)
	}
	fi, err := fsys.Stat("f")
	if err != nil || fi.Mode().Perm() != 0o400 {
		t.Fatalf("after chmod: %v %v", fi, err)
	}
	if err := fsys.Chmod("f", vfs.FilePerm); err != nil {
		t.Fatal(err)
	}
	if fi, _ := fsys.Stat("f"); fi.Mode().Perm() != vfs.FilePerm {
		t.Fatalf("after chmod back: %v", fi.Mode())
	}
	if err := fsys.Chmod("missing", vfs.FilePerm); !vfs.IsNotExist(err) {
		t.Fatalf("chmod missing: %v", err)
	}
}

func testLock(t *testing.T, fsys vfs.FS) {
	l, err := fsys.Lock("owner.lock")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.File().Write([]byte("pid 42")); err != nil {
		t.Fatal(err)
	}
	if _, err := fsys.Lock("owner.lock"); !errors.Is(err, vfs.ErrLocked) {
		t.Fatalf("second Lock: %v, want ErrLocked", err)
	}
	wantFile(t, fsys, "owner.lock", "pid 42")
	other, err := fsys.Lock("other.lock")
	if err != nil {
		t.Fatalf("Lock of another file: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	l2, err := fsys.Lock("owner.lock")
	if err != nil {
		t.Fatalf("Lock after Release: %v", err)
	}
	wantFile(t, fsys, "owner.lock", "pid 42")
	if err := l2.Release(); err != nil {
		t.Fatal(err)
	}
	if err := other.Release(); err != nil {
		t.Fatal(err)
	}
}

func testEscapes(t *testing.T, fsys vfs.FS) {
	if err := fsys.MkdirAll("a", vfs.DirPerm); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"../x", "/x", "a/../../x", "/"} {
		if _, err := fsys.OpenFile(name, os.O_RDWR|os.O_CREATE, vfs.FilePerm); err == nil {
			t.Errorf("OpenFile(%q) succeeded", name)
		}
		if _, err := fsys.Stat(name); err == nil {
			t.Errorf("Stat(%q) succeeded", name)
		}
		if err := fsys.MkdirAll(name+"/d", vfs.DirPerm); err == nil {
			t.Errorf("MkdirAll(%q) succeeded", name+"/d")
		}
		if err := fsys.Symlink("a", name); err == nil {
			t.Errorf("Symlink(_, %q) succeeded", name)
		}
		if err := vfs.WriteFileAtomic(fsys, name, []byte("x")); err == nil {
			t.Errorf("WriteFileAtomic(%q) succeeded", name)
		}
	}
	if err := fsys.Rename("a", "../a"); err == nil {
		t.Error("Rename to ../a succeeded")
	}
	if _, err := fsys.ReadDir(".."); err == nil {
		t.Error("ReadDir(..) succeeded")
	}
	// ".." that stays inside is fine.
	writeFile(t, fsys, "a/../in", "ok")
	wantFile(t, fsys, "in", "ok")
}

func testSymlinkOutside(t *testing.T, fsys vfs.FS) {
	if err := fsys.MkdirAll("d", vfs.DirPerm); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"abs":    "/etc/passwd",
		"absdir": "/tmp",
		"rel":    "../outside",
		"deep":   "../../../../../../../../etc/passwd",
		"d/up":   "../..",
		"up":     "..",
	}
	for name, target := range links {
		if err := fsys.Symlink(target, name); err != nil {
			t.Fatal(err)
		}
		if got, err := fsys.Readlink(name); err != nil || got != target {
			t.Fatalf("Readlink(%s) = %q %v", name, got, err)
		}
	}
	for _, name := range []string{"abs", "rel", "deep", "absdir/x", "d/up/x", "up/x", "up"} {
		if _, err := fsys.OpenFile(name, os.O_RDONLY, 0); err == nil {
			t.Errorf("open %s succeeded", name)
		}
		if _, err := fsys.OpenFile(name, os.O_RDWR|os.O_CREATE, vfs.FilePerm); err == nil {
			t.Errorf("create %s succeeded", name)
		}
		if _, err := fsys.Stat(name); err == nil {
			t.Errorf("stat %s succeeded", name)
		}
	}
	if err := fsys.MkdirAll("up/newdir", vfs.DirPerm); err == nil {
		t.Error("MkdirAll through a link outside succeeded")
	}
	if _, err := fsys.ReadDir("up"); err == nil {
		t.Error("ReadDir through a link outside succeeded")
	}
	// The links themselves can be seen and removed.
	if fi, err := fsys.Lstat("abs"); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("Lstat abs = %v %v", fi, err)
	}
	if err := fsys.Remove("abs"); err != nil {
		t.Fatal(err)
	}
}

func testWriteAtomic(t *testing.T, fsys vfs.FS) {
	if err := fsys.MkdirAll("s", vfs.DirPerm); err != nil {
		t.Fatal(err)
	}
	if err := vfs.WriteFileAtomic(fsys, "s/f.json", []byte("v1")); err != nil {
		t.Fatal(err)
	}
	wantFile(t, fsys, "s/f.json", "v1")
	if err := vfs.WriteFileAtomic(fsys, "s/f.json", []byte("version 2")); err != nil {
		t.Fatal(err)
	}
	wantFile(t, fsys, "s/f.json", "version 2")
	if err := vfs.WriteFileAtomic(fsys, "top", []byte("at the root")); err != nil {
		t.Fatal(err)
	}
	wantFile(t, fsys, "top", "at the root")
	// A failing writer leaves the old content and no temp file.
	boom := errors.New("boom")
	err := vfs.WriteAtomic(fsys, "s/f.json", func(w io.Writer) error {
		w.Write([]byte("partial"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("WriteAtomic = %v, want boom", err)
	}
	wantFile(t, fsys, "s/f.json", "version 2")
	if got := names(t, fsys, "s"); !slices.Equal(got, []string{"f.json"}) {
		t.Fatalf("s = %v, want only f.json", got)
	}
	if got := names(t, fsys, "."); !slices.Equal(got, []string{"s", "top"}) {
		t.Fatalf(". = %v", got)
	}
	fi, err := fsys.Stat("s/f.json")
	if err != nil || fi.Mode().Perm() != vfs.FilePerm {
		t.Fatalf("Stat = %v %v", fi, err)
	}
}

// deadPID is above the largest pid Linux hands out (PID_MAX_LIMIT, 2^22):
// no process has it.
const deadPID = "999999999"

func testSweepTemps(t *testing.T, fsys vfs.FS) {
	if err := fsys.MkdirAll("s", vfs.DirPerm); err != nil {
		t.Fatal(err)
	}
	live := strconv.Itoa(os.Getppid()) // the go command or a shell: alive
	// Files of people, some named much like temps: never removed.
	kept := []string{"keep", ".keep.tmpl", ".keep.tmp", ".keep.tmp123", ".keep.tmpabc",
		".keep.tmp-" + deadPID + "-0123456789abcdef",
		".keep." + deadPID + "-0123456789abcde" + vfs.TempSuffix,        // 15 hex digits
		".keep." + deadPID + "-0123456789ABCDEF" + vfs.TempSuffix,       // upper case
		".keep.0" + deadPID + "-0123456789abcdef" + vfs.TempSuffix,      // a leading zero
		"." + deadPID + "-0123456789abcdef" + vfs.TempSuffix,            // no stem
		".keep." + deadPID + "-0123456789abcdef" + vfs.TempSuffix + "~", // a backup of one
		"keep." + deadPID + "-0123456789abcdef" + vfs.TempSuffix,        // no leading dot
		// A live writer's temp: another process's, and this one's in use.
		".keep." + live + "-0123456789abcdef" + vfs.TempSuffix,
	}
	for _, n := range kept {
		writeFile(t, fsys, "s/"+n, "user: "+n)
	}
	inUse := vfs.TempName("s", "keep")
	defer vfs.ReleaseTemp(inUse)
	writeFile(t, fsys, inUse, "a write in progress")
	kept = append(kept, path.Base(inUse))
	// A folder named like a temp is not a file cairn made.
	dirTemp := ".d." + deadPID + "-0123456789abcdef" + vfs.TempSuffix
	if err := fsys.MkdirAll("s/"+dirTemp, vfs.DirPerm); err != nil {
		t.Fatal(err)
	}
	kept = append(kept, dirTemp)
	// Left over: a dead writer's file and link, and one of this process
	// that its writer let go of.
	writeFile(t, fsys, "s/.keep."+deadPID+"-00000000000000ff"+vfs.TempSuffix, "left by a crash")
	if err := fsys.Symlink("keep", "s/.link."+deadPID+"-00000000000000fe"+vfs.TempSuffix); err != nil {
		t.Fatal(err)
	}
	released := vfs.TempName("s", "keep")
	writeFile(t, fsys, released, "given up")
	vfs.ReleaseTemp(released)

	n, err := vfs.SweepTemps(fsys, "s")
	if err != nil || n != 3 {
		t.Fatalf("SweepTemps = %d %v, want 3", n, err)
	}
	slices.Sort(kept)
	if got := names(t, fsys, "s"); !slices.Equal(got, kept) {
		t.Fatalf("s = %v\nwant %v", got, kept)
	}
	for _, n := range kept {
		if n != dirTemp && n != path.Base(inUse) {
			wantFile(t, fsys, "s/"+n, "user: "+n)
		}
	}
	if n, err := vfs.SweepTemps(fsys, "missing"); n != 0 || err != nil {
		t.Fatalf("SweepTemps(missing) = %d %v", n, err)
	}
}

func testCreateTemp(t *testing.T, fsys vfs.FS) {
	seen := map[string]bool{}
	for range 5 {
		f, err := vfs.CreateTemp(fsys, ".", "x.json")
		if err != nil {
			t.Fatal(err)
		}
		name := f.Name()
		if seen[name] {
			t.Fatalf("CreateTemp reused %s", name)
		}
		seen[name] = true
		if pid, ok := vfs.TempPID(name); !ok || pid != os.Getpid() {
			t.Fatalf("CreateTemp made %s: TempPID = %d %v", name, pid, ok)
		}
		if _, err := f.Write([]byte(name)); err != nil {
			t.Fatal(err)
		}
		f.Close()
		wantFile(t, fsys, name, name)
		fi, err := fsys.Stat(name)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("Stat %s = %v %v", name, fi, err)
		}
		// In use until released: a sweep leaves it, then takes it.
		if n, _ := vfs.SweepTemps(fsys, "."); n != 0 {
			t.Fatalf("SweepTemps removed %s while in use", name)
		}
		vfs.ReleaseTemp(name)
		if n, _ := vfs.SweepTemps(fsys, "."); n != 1 {
			t.Fatalf("SweepTemps left %s once released", name)
		}
	}
	if _, err := vfs.CreateTemp(fsys, "missing", "x"); !vfs.IsNotExist(err) {
		t.Fatalf("CreateTemp in missing folder: %v", err)
	}
	// The longest legal name still has a temp name within NameMax.
	long := strings.Repeat("é", vfs.NameMax/2) + "x" // 255 bytes
	f, err := vfs.CreateTemp(fsys, ".", long)
	if err != nil {
		t.Fatalf("CreateTemp for a %d-byte name: %v", len(long), err)
	}
	defer vfs.ReleaseTemp(f.Name())
	f.Close()
	if n := len(f.Name()); n > vfs.NameMax || !utf8.ValidString(f.Name()) || !vfs.IsTemp(f.Name()) {
		t.Fatalf("temp name for a %d-byte name: %d bytes %q", len(long), n, f.Name())
	}
}

func testConcurrent(t *testing.T, fsys vfs.FS) {
	const workers, lines = 4, 50
	f, err := fsys.OpenFile("log", os.O_WRONLY|os.O_CREATE|os.O_APPEND, vfs.FilePerm)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			line := []byte{byte('a' + w), '\n'}
			for range lines {
				if _, err := f.Write(line); err != nil {
					t.Error(err)
					return
				}
			}
			vfs.WriteFileAtomic(fsys, "state", line)
			fsys.ReadDir(".")
		})
	}
	wg.Wait()
	f.Close()
	data, err := vfs.ReadFile(fsys, "log")
	if err != nil {
		t.Fatal(err)
	}
	if len(data) != workers*lines*2 {
		t.Fatalf("log has %d bytes, want %d", len(data), workers*lines*2)
	}
	for w := range workers {
		if c := bytes.Count(data, []byte{byte('a' + w), '\n'}); c != lines {
			t.Fatalf("worker %d: %d lines, want %d", w, c, lines)
		}
	}
	if got, err := vfs.ReadFile(fsys, "state"); err != nil || len(got) != 2 {
		t.Fatalf("state = %q %v", got, err)
	}
}
