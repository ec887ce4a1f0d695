//go:build !linux

package scope

import "golang.org/x/sys/unix"

// appendNames appends to all the paths of the entries in buf, what one
// unix.ReadDirent read ("." and ".." left out): each is prefix and the
// name, then a NUL byte. The system's own dirent layout is read by
// unix.ParseDirent (a BSD's differs from Linux's, and may hold deleted
// entries).
func appendNames(all []byte, buf []byte, prefix string) ([]byte, error) {
	_, _, names := unix.ParseDirent(buf, -1, nil)
	for _, name := range names {
		all = append(append(append(all, prefix...), name...), 0)
	}
	return all, nil
}
