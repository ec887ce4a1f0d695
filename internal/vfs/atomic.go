package vfs

import (
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
)

// WriteAtomic creates or replaces the file name so that a reader, or the disk
// after a crash, sees either the old content or the whole new content:
// a temp file in the same folder, write, fsync, close, rename, fsync the
// folder. write is called once with the temp file (see CreateTemp for its
// name); an error from it leaves the old file as it was and removes the temp
// file.
func WriteAtomic(fsys FS, name string, write func(io.Writer) error) (err error) {
	dir, base := path.Split(name)
	dir = cleanDir(dir)
	f, err := CreateTemp(fsys, dir, base)
	if err != nil {
		return asWriteOf(err, name)
	}
	tmp := f.Name()
	defer func() { err = asWriteOf(err, name) }()
	defer ReleaseTemp(tmp)
	done := false
	defer func() {
		if !done {
			f.Close()
			fsys.Remove(tmp)
		}
	}()
	if err := write(f); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := fsys.Rename(tmp, name); err != nil {
		return err
	}
	done = true
	return fsys.SyncDir(dir)
}

// ReplaceFile replaces the file name with data atomically for readers — a
// temp file in the same folder renamed over it, so a reader sees the old
// content or the new, whole — but syncs nothing: after a crash the name may
// hold the old content, the new, or an empty or partial file. Use it only for
// derived files that are rebuilt when they are unreadable.
func ReplaceFile(fsys FS, name string, data []byte) (err error) {
	dir, base := path.Split(name)
	f, err := CreateTemp(fsys, cleanDir(dir), base)
	if err != nil {
		return asWriteOf(err, name)
	}
	tmp := f.Name()
	defer func() { err = asWriteOf(err, name) }()
	defer ReleaseTemp(tmp)
	if _, err := f.Write(data); err != nil {
		f.Close()
		fsys.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		fsys.Remove(tmp)
		return err
	}
	if err := fsys.Rename(tmp, name); err != nil {
		fsys.Remove(tmp)
		return err
	}
	return nil
}

// asWriteOf is err, an error of a step of writing file name through a temp
// file, as the failed write of name: the temp file is cairn's business,
// and its name, which a *fs.PathError or an *os.LinkError of the step
// carries, means nothing to whoever reads the error. The system's error
// stays wrapped (errors.Is sees it).
func asWriteOf(err error, name string) error {
	var cause error
	switch e := err.(type) {
	case *fs.PathError:
		if !IsTemp(path.Base(e.Path)) {
			return err
		}
		cause = e.Err
	case *os.LinkError:
		if !IsTemp(path.Base(e.Old)) {
			return err
		}
		cause = e.Err
	default:
		return err
	}
	return &fs.PathError{Op: "write", Path: name, Err: cause}
}

// WriteFileAtomic is WriteAtomic with the whole content in hand.
func WriteFileAtomic(fsys FS, name string, data []byte) error {
	return WriteAtomic(fsys, name, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// cleanDir turns the folder part of path.Split into a name: "" is ".", and
// the trailing slash goes, except from "/", which must stay absolute (and be
// refused).
func cleanDir(dir string) string {
	if dir == "" {
		return "."
	}
	if dir != "/" {
		dir = strings.TrimSuffix(dir, "/")
	}
	return dir
}

// MkdirAllDurable creates folder name and any missing parents, like
// MkdirAll, and makes each new folder's entry durable by syncing the folder
// that holds it (the top folder "." included). Folders that already exist
// cost one Stat each.
func MkdirAllDurable(fsys FS, name string, perm fs.FileMode) error {
	name = path.Clean(name)
	if name == "." {
		return nil
	}
	parts := strings.Split(name, "/")
	for i := range parts {
		dir := path.Join(parts[:i+1]...)
		if _, err := fsys.Stat(dir); err == nil {
			continue
		} else if !IsNotExist(err) {
			return err
		}
		if err := fsys.MkdirAll(dir, perm); err != nil {
			return err
		}
		if err := fsys.SyncDir(path.Dir(dir)); err != nil {
			return err
		}
	}
	return nil
}
