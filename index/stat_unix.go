//go:build unix

package index

import (
	"io/fs"
	"syscall"
)

// inode is the file's inode number, or 0 when the FS does not give one.
func inode(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
