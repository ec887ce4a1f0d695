package durable

import (
	"context"
	"io"
	"os"
	"path"

	"cairn/internal/vfs"
)

// CopyFile copies file from to name to, durably: to's missing folders
// made and synced, then vfs.WriteAtomic (a temp file beside to, synced,
// renamed over it, the folder synced). A missing from copies nothing. It
// is the one "copy a file atomically" of the engine: moves, forgets and
// migrations copy through it.
func CopyFile(fsys vfs.FS, from, to string) error {
	f, err := fsys.OpenFile(from, os.O_RDONLY, 0)
	if vfs.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if err := vfs.MkdirAllDurable(fsys, path.Dir(to), vfs.DirPerm); err != nil {
		return err
	}
	return vfs.WriteAtomic(fsys, to, func(w io.Writer) error {
		_, err := io.Copy(w, f)
		return err
	})
}

// CopyFolder copies the files of folder from into folder to, each durable
// (temp files and anything not a regular file are left out).
func CopyFolder(ctx context.Context, fsys vfs.FS, from, to string) error {
	ents, err := fsys.ReadDir(from)
	if vfs.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := vfs.MkdirAllDurable(fsys, to, vfs.DirPerm); err != nil {
		return err
	}
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !e.Type().IsRegular() || vfs.IsTemp(e.Name()) {
			continue
		}
		if err := CopyFile(fsys, path.Join(from, e.Name()), path.Join(to, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// MoveFile moves file from to to so that a crash leaves it in one place
// or both, never neither: a durable copy at to (when to is not there
// yet), then from removed and its folder synced. Run again after a crash,
// it finishes. A missing from is not an error.
func MoveFile(fsys vfs.FS, from, to string) error {
	if _, err := fsys.Lstat(from); vfs.IsNotExist(err) {
		return nil
	}
	if _, err := fsys.Lstat(to); vfs.IsNotExist(err) {
		if err := CopyFile(fsys, from, to); err != nil {
			return err
		}
	}
	if err := fsys.Remove(from); err != nil && !vfs.IsNotExist(err) {
		return err
	}
	return fsys.SyncDir(path.Dir(from))
}

// Remove removes name and syncs its folder; a name already gone is fine.
func Remove(fsys vfs.FS, name string) error {
	if err := fsys.Remove(name); err != nil && !vfs.IsNotExist(err) {
		return err
	}
	return fsys.SyncDir(path.Dir(name))
}

// RemoveFolder removes folder dir with all it holds, and syncs its parent;
// a folder already gone is fine.
func RemoveFolder(ctx context.Context, fsys vfs.FS, dir string) error {
	ents, err := fsys.ReadDir(dir)
	if err != nil {
		if vfs.IsNotExist(err) {
			return nil
		}
		return err
	}
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return err
		}
		p := path.Join(dir, e.Name())
		if e.IsDir() {
			if err := RemoveFolder(ctx, fsys, p); err != nil {
				return err
			}
			continue
		}
		if err := fsys.Remove(p); err != nil && !vfs.IsNotExist(err) {
			return err
		}
	}
	if err := fsys.Remove(dir); err != nil && !vfs.IsNotExist(err) {
		return err
	}
	return fsys.SyncDir(path.Dir(dir))
}
