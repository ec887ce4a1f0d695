//go:build !linux

package vfs

import (
	"errors"
	"io/fs"
)

// SyncFS is not available here: callers Sync each file.
func (d *Disk) SyncFS(name string) (FSSync, error) {
	return nil, &fs.PathError{Op: "syncfs", Path: name, Err: errors.ErrUnsupported}
}
