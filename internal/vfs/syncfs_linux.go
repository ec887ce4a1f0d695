package vfs

import (
	"errors"
	"io/fs"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// SyncFS makes the data of every file on the filesystem of folder name
// durable with syncfs(2) on the folder (FSSyncer). Only from Linux 5.8
// does syncfs report a write-back error; on an older kernel it says
// unsupported, and callers sync each file, whose errors are reported.
func (d *Disk) SyncFS(name string) error {
	if !syncfsReportsErrors() {
		return &fs.PathError{Op: "syncfs", Path: name, Err: errors.ErrUnsupported}
	}
	f, err := openDir(d.root, name)
	if err != nil {
		return err
	}
	defer f.Close()
	err = unix.Syncfs(int(f.Fd()))
	switch {
	case err == nil:
		return nil
	case errors.Is(err, syscall.ENOSYS):
		return &fs.PathError{Op: "syncfs", Path: name, Err: errors.Join(errors.ErrUnsupported, err)}
	}
	return &fs.PathError{Op: "syncfs", Path: name, Err: err}
}

// syncfsReportsErrors reports whether the kernel is Linux 5.8 or later.
func syncfsReportsErrors() bool {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return false
	}
	rel := unix.ByteSliceToString(u.Release[:])
	parts := strings.SplitN(rel, ".", 3)
	if len(parts) < 2 {
		return false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(strings.TrimFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' }))
	if err1 != nil || err2 != nil {
		return false
	}
	return major > 5 || major == 5 && minor >= 8
}
