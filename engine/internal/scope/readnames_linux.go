package scope

import (
	"bytes"
	"unsafe"

	"golang.org/x/sys/unix"
)

// readNames lists the names in folder fd ("." and ".." left out), each
// after prefix, with getdents64(2) into a buffer of the walk's pool: no
// os.File, one string per name, and for most folders two system calls
// (the second says the end). It reads struct linux_dirent64 itself, so
// it is Linux's alone (readnames_other.go elsewhere).
func (w *walker) readNames(fd int, prefix string) ([]string, error) {
	bp := w.buf()
	defer w.bufs.Put(bp)
	var out []string
	var sb []byte
	for {
		n, err := unix.Getdents(fd, *bp)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			return out, nil
		}
		for b := (*bp)[:n]; len(b) > 0; {
			// struct linux_dirent64: ino 8, off 8, reclen 2, type 1, name.
			reclen := int(*(*uint16)(unsafe.Pointer(&b[16])))
			if reclen < 20 || reclen > len(b) {
				return nil, unix.EIO
			}
			name := b[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			b = b[reclen:]
			if string(name) == "." || string(name) == ".." {
				continue
			}
			sb = append(append(sb[:0], prefix...), name...)
			out = append(out, string(sb))
		}
	}
}
