package wsident

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// fsIocGetVersion is FS_IOC_GETVERSION, _IOR('v', 1, long): the same
// request as FS_IOC_GETFLAGS, _IOR('f', 1, long), with 'v' for 'f', on
// every architecture.
const fsIocGetVersion = unix.FS_IOC_GETFLAGS + ('v'-'f')<<8

// StampOf is the stamp of the folder at p (links followed).
func StampOf(p string) (Stamp, error) {
	var sx unix.Statx_t
	err := unix.Statx(unix.AT_FDCWD, p, 0, unix.STATX_INO|unix.STATX_BTIME|unix.STATX_TYPE, &sx)
	if err != nil {
		return Stamp{}, fmt.Errorf("wsident: %s: %w", p, err)
	}
	st := Stamp{Dev: unix.Mkdev(sx.Dev_major, sx.Dev_minor), Ino: sx.Ino}
	if sx.Mask&unix.STATX_BTIME != 0 {
		st.BirthNS = sx.Btime.Sec*1e9 + int64(sx.Btime.Nsec)
	}
	// The inode's generation number, where the filesystem keeps one
	// (ext4, xfs, btrfs, tmpfs): a new one for each inode made, even one
	// reused within the clock's tick.
	if fd, err := unix.Open(p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0); err == nil {
		if g, err := unix.IoctlGetUint32(fd, fsIocGetVersion); err == nil {
			st.InoGen = uint64(g) + 1 // 0 stays "unknown"
		}
		unix.Close(fd)
	}
	return st, nil
}
