//go:build !linux

package scope

import "golang.org/x/sys/unix"

// appendNames appends to out the names of the entries in buf, what one
// unix.ReadDirent read ("." and ".." left out), each after prefix. The
// system's own dirent layout is read by unix.ParseDirent (a BSD's differs
// from Linux's, and may hold deleted entries).
func appendNames(out []string, buf []byte, prefix string) ([]string, error) {
	_, _, names := unix.ParseDirent(buf, -1, nil)
	for _, name := range names {
		out = append(out, prefix+name)
	}
	return out, nil
}
