package vfs

import (
	"errors"
	"io/fs"
	"syscall"

	"golang.org/x/sys/unix"
)

// SyncFS makes the data of every file on the filesystem of folder name
// durable with syncfs(2) on the folder (FSSyncer). Since Linux 5.8 it
// reports a write-back error of any file on that filesystem.
func (d *Disk) SyncFS(name string) error {
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
