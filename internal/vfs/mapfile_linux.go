package vfs

import "golang.org/x/sys/unix"

// mapLimit is the largest file MapFile maps; a larger one is read.
const mapLimit = 1 << 30

// mapOpen maps open file f whole, read-only, its pages put in place by
// the one call (MAP_POPULATE: no fault per page as they are read), when
// it holds 1 to mapLimit bytes.
func mapOpen(f *diskFile) ([]byte, func(), bool) {
	fi, err := f.Stat()
	if err != nil || fi.Size() <= 0 || fi.Size() > mapLimit {
		return nil, nil, false
	}
	b, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return nil, nil, false
	}
	return b, func() { unix.Munmap(b) }, true
}
