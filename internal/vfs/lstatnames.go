package vfs

import (
	"io/fs"
	"path"
	"runtime"
	"strings"
	"sync"
	"syscall"
)

// NamesReader is an FS that can list a folder's names for less than
// ReadDir: the real disk reads them without an Lstat of each.
type NamesReader interface {
	ReadDirNames(dir string) ([]string, error)
}

// ReadDirNames is the names of folder dir's entries, sorted: fsys's
// NamesReader, or ReadDir's names.
func ReadDirNames(fsys FS, dir string) ([]string, error) {
	if x, ok := fsys.(NamesReader); ok {
		return x.ReadDirNames(dir)
	}
	ents, err := fsys.ReadDir(dir)
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.Name()
	}
	return names, err
}

// NamesLstater is an FS that can Lstat many names of one folder for less
// than one Lstat each: the real disk opens the folder once and asks for each
// name relative to it, on several threads. Its contract is LstatNames's.
type NamesLstater interface {
	LstatNames(dir string, names []string, fn func(i int, fi fs.FileInfo, err error)) error
}

// LstatNames calls fn with the Lstat of each base name in folder dir, with
// fsys's NamesLstater, or with one Lstat each. fn may be called from several
// goroutines at once, each i once; fi is fn's only until it returns (the
// real disk reuses it for the next name). The error is for the folder itself (it
// cannot be opened); a name's own error goes to fn.
func LstatNames(fsys FS, dir string, names []string, fn func(i int, fi fs.FileInfo, err error)) error {
	if x, ok := fsys.(NamesLstater); ok {
		return x.LstatNames(dir, names, fn)
	}
	for i, n := range names {
		if !baseName(n) {
			fn(i, nil, &fs.PathError{Op: "lstat", Path: dir + "/" + n, Err: syscall.EINVAL})
			continue
		}
		fi, err := fsys.Lstat(path.Join(dir, n))
		fn(i, fi, err)
	}
	return nil
}

// baseName reports whether n names an entry of a folder: not empty, not
// "." or "..", no slash.
func baseName(n string) bool {
	return n != "" && n != "." && n != ".." && !strings.ContainsRune(n, '/')
}

// Inoder is a FileInfo that knows its file's inode number without Sys.
type Inoder interface{ Ino() uint64 }

// eachParallel runs fn over the ranges [lo, hi) that together make 0..n-1,
// on up to 8 goroutines, one range each, when n is big enough to pay for
// them; else fn(0, n) here.
func eachParallel(n int, fn func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), 8, n/512+1)
	if workers <= 1 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	per := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += per {
		wg.Go(func() { fn(lo, min(lo+per, n)) })
	}
	wg.Wait()
}
