//go:build !linux

package vfs

import (
	"errors"
	"os"
)

// Exchange is not available here: callers Rename.
func (d *Disk) Exchange(a, b string) error {
	return &os.LinkError{Op: "exchange", Old: a, New: b, Err: errors.ErrUnsupported}
}
