package vfs

import (
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
)

// atomicWriter is implemented by an FS with its own way of replacing a file
// atomically (Disk uses renameio). It must leave the file and its folder
// entry durable when it returns nil.
type atomicWriter interface {
	WriteAtomic(name string, perm uint32, write func(io.Writer) error) error
}

// WriteAtomic creates or replaces the file name so that a reader, or the disk
// after a crash, sees either the old content or the whole new content:
// a temp file in the same folder, write, fsync, close, rename, fsync the
// folder. write is called once with the temp file; an error from it leaves the
// old file as it was and removes the temp file.
func WriteAtomic(fsys FS, name string, write func(io.Writer) error) error {
	if a, ok := fsys.(atomicWriter); ok {
		return a.WriteAtomic(name, uint32(FilePerm), write)
	}
	dir, base := path.Split(name)
	dir = cleanDir(dir)
	f, err := fsys.CreateTemp(dir, TempPrefix(base))
	if err != nil {
		return err
	}
	tmp := f.Name()
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
func ReplaceFile(fsys FS, name string, data []byte) error {
	dir, base := path.Split(name)
	f, err := fsys.CreateTemp(cleanDir(dir), TempPrefix(base))
	if err != nil {
		return err
	}
	tmp := f.Name()
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

// WriteFileAtomic is WriteAtomic with the whole content in hand.
func WriteFileAtomic(fsys FS, name string, data []byte) error {
	return WriteAtomic(fsys, name, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// TempPrefix is the prefix of a temp file destined to become base. Temp files
// are the only dot files cairn writes in its state folder, so any dot file
// found there is one left by a crash (see IsTemp).
func TempPrefix(base string) string { return "." + base + ".tmp" }

// IsTemp reports whether a file name found in a state folder is a temp file
// left behind by an interrupted atomic write.
func IsTemp(base string) bool { return strings.HasPrefix(base, ".") && base != "." && base != ".." }

// RemoveTemps removes the temp files left in folder dir by interrupted
// writes, and returns how many it removed.
func RemoveTemps(fsys FS, dir string) (int, error) {
	ents, err := fsys.ReadDir(dir)
	if err != nil {
		if IsNotExist(err) {
			return 0, nil
		}
		return 0, err
	}
	n := 0
	for _, e := range ents {
		if e.Type().IsRegular() && IsTemp(e.Name()) {
			if err := fsys.Remove(path.Join(dir, e.Name())); err != nil && !IsNotExist(err) {
				return n, fmt.Errorf("vfs: remove temp file: %w", err)
			}
			n++
		}
	}
	return n, nil
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
