package hookrec

import (
	"fmt"
	"io"
	"os"

	"cairn/internal/vfs"
)

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
