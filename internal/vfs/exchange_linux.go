package vfs

import (
	"errors"
	"os"
	"path"
	"syscall"

	"golang.org/x/sys/unix"
)

// Exchange swaps a and b, two names of one folder, with renameat2
// RENAME_EXCHANGE on the folder opened through the root: the two base
// names hold no slash, and the call follows no link in them.
func (d *Disk) Exchange(a, b string) error {
	dir, base := path.Split(a)
	dir2, base2 := path.Split(b)
	if dir != dir2 || !plainBase(base) || !plainBase(base2) {
		return &os.LinkError{Op: "exchange", Old: a, New: b, Err: syscall.EINVAL}
	}
	f, err := openDir(d.root, cleanDir(dir))
	if err != nil {
		return err
	}
	defer f.Close()
	fd := int(f.Fd())
	err = unix.Renameat2(fd, base, fd, base2, unix.RENAME_EXCHANGE)
	switch {
	case err == nil:
	case errors.Is(err, syscall.ENOSYS), errors.Is(err, syscall.EINVAL), errors.Is(err, syscall.EOPNOTSUPP):
		return &os.LinkError{Op: "exchange", Old: a, New: b, Err: errors.Join(errors.ErrUnsupported, err)}
	default:
		return &os.LinkError{Op: "exchange", Old: a, New: b, Err: err}
	}
	// A folder is not exchanged (as Mem refuses one): one that took a
	// name's place before the swap is swapped back.
	for _, n := range []string{base, base2} {
		var st unix.Stat_t
		if unix.Fstatat(fd, n, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
			if err := unix.Renameat2(fd, base, fd, base2, unix.RENAME_EXCHANGE); err != nil {
				return &os.LinkError{Op: "exchange", Old: a, New: b, Err: errors.Join(ErrSwapped, syscall.EISDIR, err)}
			}
			return &os.LinkError{Op: "exchange", Old: a, New: b, Err: syscall.EISDIR}
		}
	}
	return nil
}

func plainBase(b string) bool { return b != "" && b != "." && b != ".." }
