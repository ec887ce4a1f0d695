package scope

import (
	"bytes"
	"unsafe"

	"golang.org/x/sys/unix"
)

// appendNames appends to all the paths of the entries in buf, what one
// getdents64(2) read ("." and ".." left out): each is prefix and the name,
// then a NUL byte. It reads struct linux_dirent64 itself, so it is
// Linux's alone (readnames_other.go elsewhere).
func appendNames(all []byte, buf []byte, prefix string) ([]byte, error) {
	for b := buf; len(b) > 0; {
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
		if string(name) == "." || string(name) == ".." || len(name) == 0 {
			continue
		}
		all = append(append(append(all, prefix...), name...), 0)
	}
	return all, nil
}
