package hookrec

import (
	"fmt"
	"io"
	"os"
	"path"

	"cairn/internal/vfs"
)

// MarkFile is the file in a session's hooks folder where the hooks keep
// how far they read the agent's transcript. Its name cannot be a marker's
// (<call>.json) nor a walk's (<call>.tree).
const MarkFile = "transcript.read"

// ReadMark is the mark of hooks folder dir, or nil.
func ReadMark(fsys vfs.FS, dir string) []byte {
	b, err := vfs.ReadFile(fsys, path.Join(dir, MarkFile))
	if err != nil {
		return nil
	}
	return b
}

// SetMark keeps b as the mark of hooks folder dir: replaced whole, not
// synced (a mark a crash loses only costs a read from the start).
func SetMark(fsys vfs.FS, dir string, b []byte) error {
	if err := fsys.MkdirAll(dir, vfs.DirPerm); err != nil {
		return err
	}
	return vfs.ReplaceFile(fsys, path.Join(dir, MarkFile), b)
}

// AppendMark writes b after the first at bytes of the mark file name (the
// whole batches its reader parsed: what follows them, a batch a crash cut
// short, goes). Not synced: a mark is a cache, and one a crash leaves
// short only costs a read from further back. A mark shorter than at (gone,
// or replaced meanwhile by another hook's whole one) is not written:
// ErrMarkMoved.
func AppendMark(fsys vfs.FS, name string, at int64, b []byte) error {
	f, err := fsys.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.Size() < at {
		return ErrMarkMoved
	}
	if fi.Size() > at {
		if err := f.Truncate(at); err != nil {
			return err
		}
	}
	if _, err := f.Seek(at, io.SeekStart); err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		return fmt.Errorf("hookrec: append to %s: %w", name, err)
	}
	return f.Close()
}
