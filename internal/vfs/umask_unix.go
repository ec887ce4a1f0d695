//go:build unix

package vfs

import (
	"bytes"
	"io/fs"
	"os"
	"strconv"
	"sync"
	"syscall"
)

var umaskMu sync.Mutex

// ProcessUmask is the process's file-mode creation mask. It reads the
// "Umask:" line of /proc/self/status where there is one (Linux), which
// changes nothing; elsewhere it sets the mask and puts it back at once,
// which a file created by another goroutine in between would see.
func ProcessUmask() fs.FileMode {
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range bytes.Split(b, []byte("\n")) {
			if v, ok := bytes.CutPrefix(line, []byte("Umask:")); ok {
				if n, err := strconv.ParseUint(string(bytes.TrimSpace(v)), 8, 32); err == nil {
					return fs.FileMode(n) & fs.ModePerm
				}
			}
		}
	}
	umaskMu.Lock()
	defer umaskMu.Unlock()
	u := syscall.Umask(0o077)
	syscall.Umask(u)
	return fs.FileMode(u) & fs.ModePerm
}
