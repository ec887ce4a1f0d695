//go:build !linux

package scope

import "golang.org/x/sys/unix"

// readNames lists the names in folder fd ("." and ".." left out), each
// after prefix. The system's own dirent layout is read by unix.ParseDirent
// (a BSD's differs from Linux's, and may hold deleted entries).
func (w *walker) readNames(fd int, prefix string) ([]string, error) {
	bp := w.buf()
	defer w.bufs.Put(bp)
	var out, names []string
	for {
		n, err := unix.ReadDirent(fd, *bp)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			return out, nil
		}
		_, _, names = unix.ParseDirent((*bp)[:n], -1, names[:0])
		for _, name := range names {
			out = append(out, prefix+name)
		}
	}
}
