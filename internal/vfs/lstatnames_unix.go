//go:build unix

package vfs

import (
	"io/fs"

	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// LstatNames opens folder dir through the root once and stats each name
// relative to it (following no link). A name holding a slash, or "." or
// "..", gets EINVAL: only the folder's own entries are reached.
func (d *Disk) LstatNames(dir string, names []string, fn func(i int, fi fs.FileInfo, err error)) error {
	f, err := d.root.Open(cleanDir(dir))
	if err != nil {
		return err
	}
	defer f.Close()
	fd := int(f.Fd())
	eachParallel(len(names), func(lo, hi int) {
		// One info and one name buffer a thread, not an allocation a
		// name: a listing stats every record, 100,000 at a time.
		info := new(statInfo)
		var nameBuf []byte // the name with its NUL, for statAt
		for i := lo; i < hi; i++ {
			n := names[i]
			if !baseName(n) {
				fn(i, nil, &fs.PathError{Op: "lstat", Path: dir + "/" + n, Err: syscall.EINVAL})
				continue
			}
			nameBuf = append(append(nameBuf[:0], n...), 0)
			if err := statAt(fd, n, nameBuf, info); err != nil {
				fn(i, nil, &fs.PathError{Op: "lstat", Path: dir + "/" + n, Err: err})
				continue
			}
			fn(i, info, nil)
		}
	})
	return nil
}

// fstatatInfo is statAt by fstatat, which every Unix has.
func fstatatInfo(fd int, name string, info *statInfo) error {
	var st unix.Stat_t
	if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return err
	}
	*info = statInfo{name: name, size: st.Size, mode: uint32(st.Mode), ino: uint64(st.Ino), sec: int64(st.Mtim.Sec), nsec: int64(st.Mtim.Nsec)}
	return nil
}

// statInfo is a FileInfo made from what a stat buffer says of the file.
type statInfo struct {
	name      string
	size      int64
	sec, nsec int64 // modification time
	ino       uint64
	mode      uint32
}

func (s *statInfo) Name() string       { return s.name }
func (s *statInfo) Size() int64        { return s.size }
func (s *statInfo) ModTime() time.Time { return time.Unix(s.sec, s.nsec) }
func (s *statInfo) IsDir() bool        { return s.Mode().IsDir() }
func (s *statInfo) Sys() any           { return nil }
func (s *statInfo) Ino() uint64        { return s.ino }

func (s *statInfo) Mode() fs.FileMode {
	m := fs.FileMode(s.mode & 0o777)
	switch s.mode & unix.S_IFMT {
	case unix.S_IFREG:
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	default:
		m |= fs.ModeIrregular
	}
	return m
}
