package index

import (
	"io/fs"

	"cairn/internal/vfs"
)

// statKey identifies one version of a record file: when it is unchanged the
// cached entry is reused.
type statKey struct {
	size  int64
	mtime int64 // nanoseconds since the Unix epoch
	ino   uint64
}

func keyOf(fi fs.FileInfo) statKey {
	ino := uint64(0)
	if x, ok := fi.(vfs.Inoder); ok {
		ino = x.Ino()
	} else {
		ino = inode(fi)
	}
	return statKey{size: fi.Size(), mtime: fi.ModTime().UnixNano(), ino: ino}
}
