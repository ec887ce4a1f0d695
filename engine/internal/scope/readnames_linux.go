package scope

import (
	"bytes"
	"unsafe"

	"golang.org/x/sys/unix"
)

// appendNames appends to out the names of the entries in buf, what one
// getdents64(2) read ("." and ".." left out), each after prefix: one
// string per name, made here. It reads struct linux_dirent64 itself, so
// it is Linux's alone (readnames_other.go elsewhere).
func appendNames(out []string, buf []byte, prefix string) ([]string, error) {
	var sb []byte
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
		if string(name) == "." || string(name) == ".." {
			continue
		}
		sb = append(append(sb[:0], prefix...), name...)
		out = append(out, string(sb))
	}
	return out, nil
}
