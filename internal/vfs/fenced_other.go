//go:build !linux

package vfs

import "golang.org/x/sys/unix"

// dirRefFlags opens a folder above another only to stat it.
const dirRefFlags = unix.O_RDONLY
