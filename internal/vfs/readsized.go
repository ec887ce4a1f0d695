package vfs

import (
	"errors"
	"io"
)

// ReadSized reads r to its end, at most limit bytes and one more (so a
// caller sees that there was more), into a buffer sized for size bytes,
// what a stat said the file holds: a file that did not change since is
// read in one read and the read that says it ended, where io.ReadAll
// would grow its buffer through a dozen reads of a 10 KB file. A file that
// grew is read whole all the same.
func ReadSized(r io.Reader, size, limit int64) ([]byte, error) {
	size = max(0, min(size, limit))
	b := make([]byte, 0, size+1)
	r = io.LimitReader(r, limit+1)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // grows the buffer
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if errors.Is(err, io.EOF) {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}
