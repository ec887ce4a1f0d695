package durable

import (
	"path"

	"cairn/internal/vfs"
)

// EnsureDir creates folder name (and parents) if missing and makes the new
// entries durable, syncing each parent up to top (or the state folder).
func EnsureDir(fsys vfs.FS, name, top string) error {
	if _, err := fsys.Stat(name); err == nil {
		return nil
	}
	if err := fsys.MkdirAll(name, vfs.DirPerm); err != nil {
		return err
	}
	for d := name; d != "." && d != "/"; {
		parent := path.Dir(d)
		if err := fsys.SyncDir(parent); err != nil {
			return err
		}
		if parent == top || parent == "." {
			break
		}
		d = parent
	}
	return nil
}
