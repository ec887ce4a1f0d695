package index

import "io/fs"

// statKey identifies one version of a record file: when it is unchanged the
// cached entry is reused.
type statKey struct {
	size  int64
	mtime int64 // nanoseconds since the Unix epoch
	ino   uint64
}

func keyOf(fi fs.FileInfo) statKey {
	return statKey{size: fi.Size(), mtime: fi.ModTime().UnixNano(), ino: inode(fi)}
}
