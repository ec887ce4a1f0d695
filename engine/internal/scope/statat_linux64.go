//go:build linux && (amd64 || arm64)

package scope

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// fstatat0 is fstatat(2) of name in folder dirfd, not following a link.
// name must be followed in memory by a NUL byte, as the paths of
// readNames are: the system reads it in place, where unix.Fstatat makes a
// NUL-terminated copy of every name it is given (an allocation per entry
// of a walk).
func fstatat0(dirfd int, name string, st *unix.Stat_t) error {
	_, _, errno := unix.Syscall6(unix.SYS_NEWFSTATAT, uintptr(dirfd), uintptr(unsafe.Pointer(unsafe.StringData(name))),
		uintptr(unsafe.Pointer(st)), unix.AT_SYMLINK_NOFOLLOW, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}
