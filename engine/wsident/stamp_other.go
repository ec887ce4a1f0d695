//go:build !linux

package wsident

import (
	"fmt"
	"os"
	"syscall"
)

// StampOf is the stamp of the folder at p (links followed): its device and
// inode where the system says them.
func StampOf(p string) (Stamp, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return Stamp{}, fmt.Errorf("wsident: %w", err)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return Stamp{Dev: uint64(st.Dev), Ino: uint64(st.Ino)}, nil
	}
	return Stamp{}, nil
}
