//go:build !unix

package vfs

import "io/fs"

// ProcessUmask is the process's file-mode creation mask: none where the
// system has no umask.
func ProcessUmask() fs.FileMode { return 0 }
