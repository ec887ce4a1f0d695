package vfs

import "golang.org/x/sys/unix"

// dirRefFlags opens a folder above another only to stat it: O_PATH needs
// no permission to read the folder.
const dirRefFlags = unix.O_PATH
