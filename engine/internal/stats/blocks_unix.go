//go:build unix

package stats

import (
	"io/fs"
	"syscall"
)

// diskUsage is what a file takes on disk, as du counts it: its allocated
// 512-byte blocks, and its device and inode so a file with several names is
// counted once. ok is false when fi carries no stat data (a test filesystem).
func diskUsage(fi fs.FileInfo) (disk int64, dev, ino uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0, false
	}
	return int64(st.Blocks) * 512, uint64(st.Dev), uint64(st.Ino), true
}
