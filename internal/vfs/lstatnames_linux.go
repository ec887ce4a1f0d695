package vfs

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// statxWant is what LstatNames needs of a file: its type and permissions,
// size, modification time and inode number.
const statxWant = unix.STATX_TYPE | unix.STATX_MODE | unix.STATX_SIZE | unix.STATX_MTIME | unix.STATX_INO

// statAt stats name in folder fd without following a link, into info.
// nameBuf is name with a NUL after it, in memory the caller keeps.
//
// It asks statx directly, as a raw system call: a listing stats every
// record, and at 100,000 records the runtime's bookkeeping around a system
// call (Syscall6 hands the thread's P to the scheduler and takes it back,
// and the monitor thread wakes to take it over) cost a fifth of the stat
// itself; a stat of a local file does not wait on anything long enough to
// need that. No allocation either: unix.Fstatat copies the name each call.
// A kernel without statx (before Linux 4.11), or a file system that does
// not fill in every field asked for, takes fstatat.
func statAt(fd int, name string, nameBuf []byte, info *statInfo) error {
	var sx unix.Statx_t
	_, _, e := unix.RawSyscall6(unix.SYS_STATX, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(nameBuf))),
		unix.AT_SYMLINK_NOFOLLOW, statxWant, uintptr(unsafe.Pointer(&sx)), 0)
	switch {
	case e == unix.ENOSYS || e == 0 && sx.Mask&statxWant != statxWant:
		return fstatatInfo(fd, name, info)
	case e != 0:
		return e
	}
	*info = statInfo{name: name, size: int64(sx.Size), mode: uint32(sx.Mode), ino: sx.Ino, sec: sx.Mtime.Sec, nsec: int64(sx.Mtime.Nsec)}
	return nil
}
