package vfs

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// SyncFS opens folder name for syncfs(2) (FSSyncer). Only from Linux 5.8
// does syncfs report a write-back error, and then those since the folder
// was opened; on an older kernel it says unsupported, and callers sync
// each file, whose errors are reported.
func (d *Disk) SyncFS(name string) (FSSync, error) {
	if !syncfsReportsErrors() {
		return nil, &fs.PathError{Op: "syncfs", Path: name, Err: errors.ErrUnsupported}
	}
	f, err := openDir(d.root, name)
	if err != nil {
		return nil, err
	}
	return diskSync{f}, nil
}

// diskSync is the folder a Disk's SyncFS opened.
type diskSync struct{ f *os.File }

func (s diskSync) Sync() error {
	err := unix.Syncfs(int(s.f.Fd()))
	switch {
	case err == nil:
		return nil
	case errors.Is(err, syscall.ENOSYS):
		return &fs.PathError{Op: "syncfs", Path: s.f.Name(), Err: errors.Join(errors.ErrUnsupported, err)}
	}
	return &fs.PathError{Op: "syncfs", Path: s.f.Name(), Err: err}
}

func (s diskSync) Close() error { return s.f.Close() }

// syncfsReportsErrors reports whether the kernel is Linux 5.8 or later.
func syncfsReportsErrors() bool {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return false
	}
	return releaseAtLeast(unix.ByteSliceToString(u.Release[:]), 5, 8)
}

// releaseAtLeast reports whether kernel release rel ("6.8.0-45-generic",
// "5.8-rc1") is major.minor or later; false when it cannot be read.
func releaseAtLeast(rel string, major, minor int) bool {
	num := func(s string) (int, bool) {
		if i := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
			s = s[:i]
		}
		n, err := strconv.Atoi(s)
		return n, err == nil
	}
	parts := strings.SplitN(rel, ".", 3)
	if len(parts) < 2 {
		return false
	}
	maj, ok1 := num(parts[0])
	mi, ok2 := num(parts[1])
	return ok1 && ok2 && (maj > major || maj == major && mi >= minor)
}
