package scope

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"cairn/objects"
)

// Reading a file or a folder's names for the walk, through file
// descriptors relative to the folder read (walk.go).

// errGone says the file was removed between its listing and its read.
var errGone = errors.New("scope: removed while walked")

// hash sets e.Hash: from the cache when it holds the same stat data and
// is not racy (cached), else by reading the file. cur, when not nil, is
// the cache's cursor over the folder being read (names asked in order).
func (w *walker) hash(dirfd int, name string, e *Entry, st *unix.Stat_t, cur *cacheCursor) (cached bool, err error) {
	if w.noHash {
		return false, nil
	}
	if c := w.opts.Cache; c != nil {
		var ce *cacheEntry
		if cur != nil {
			ce = cur.entry(name)
		} else {
			ce = c.entry(e.Path)
		}
		if h, ok := ce.lookup(e, w.gen); ok {
			e.Hash = h
			return true, nil
		}
	}
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		if err == unix.ENOENT {
			return false, errGone
		}
		if err == unix.EACCES || err == unix.EPERM || err == unix.ELOOP {
			e.Skipped = "unreadable"
			return false, nil
		}
		return false, &fs.PathError{Op: "open", Path: w.abs(e.Path), Err: err}
	}
	defer unix.Close(fd)
	var fst unix.Stat_t
	if err := unix.Fstat(fd, &fst); err != nil || fst.Mode&unix.S_IFMT != unix.S_IFREG || fst.Ino != st.Ino {
		e.Skipped = "unreadable" // replaced while walked
		return false, nil
	}
	h, err := w.readFile(e.Path, fdReader(fd))
	if err != nil {
		return false, &fs.PathError{Op: "read", Path: w.abs(e.Path), Err: err}
	}
	e.Hash = h
	if w.opts.Cache != nil {
		w.mu.Lock()
		w.read = append(w.read, *e)
		w.mu.Unlock()
	}
	return false, nil
}

// readFile hashes r, through Options.Hash when set.
func (w *walker) readFile(rel string, r io.Reader) (objects.ID, error) {
	if w.opts.Hash != nil {
		return w.opts.Hash(rel, r)
	}
	h := sha256.New()
	bp := w.buf()
	defer w.bufs.Put(bp)
	if _, err := io.CopyBuffer(h, r, *bp); err != nil {
		return objects.ID{}, err
	}
	var id objects.ID
	h.Sum(id[:0])
	return id, nil
}

// buf is a read buffer of the walk's pool (put it back).
func (w *walker) buf() *[]byte {
	bp, _ := w.bufs.Get().(*[]byte)
	if bp == nil {
		b := make([]byte, 64<<10)
		bp = &b
	}
	return bp
}

// readNames lists the names in folder fd ("." and ".." left out), each
// after prefix, read with unix.ReadDirent (getdents64(2) on Linux) into a
// buffer of the walk's pool: no os.File, and for most folders two system
// calls (the second says the end). appendNames reads the entries.
//
// The paths are parts of one string made for the whole folder (one
// allocation, not one per entry), each followed in it by a NUL byte, so a
// name can be given to the system as it is (fstatat0). They are appended
// to out.
func (w *walker) readNames(fd int, prefix string, out []string) ([]string, error) {
	bp, ap := w.buf(), w.buf()
	defer w.bufs.Put(bp)
	defer w.bufs.Put(ap)
	all := (*ap)[:0]
	for {
		n, err := unix.ReadDirent(fd, *bp)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			break
		}
		if all, err = appendNames(all, (*bp)[:n], prefix); err != nil {
			return nil, err
		}
	}
	*ap = all[:cap(all)] // a grown buffer serves the next folder
	paths := string(all)
	for len(paths) > 0 {
		i := strings.IndexByte(paths, 0)
		out = append(out, paths[:i])
		paths = paths[i+1:]
	}
	return out, nil
}

// fdReader reads an open file descriptor. Unlike an os.File it has no
// WriteTo, so io.CopyBuffer uses the walk's buffer instead of making one
// per file, and it costs no allocation or finalizer.
type fdReader int

func (r fdReader) Read(p []byte) (int, error) {
	for {
		n, err := unix.Read(int(r), p)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		if n == 0 && len(p) > 0 {
			return 0, io.EOF
		}
		return n, nil
	}
}

// readAt reads the small file name of folder dirfd.
func readAt(dirfd int, name string, size int64) ([]byte, error) {
	if size > 1<<20 {
		return nil, fmt.Errorf("scope: %s too large", name)
	}
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 1<<20))
}

func readlinkAt(dirfd int, name string) (string, error) {
	for n := 256; ; n *= 2 {
		buf := make([]byte, n)
		got, err := unix.Readlinkat(dirfd, name, buf)
		if err != nil {
			return "", err
		}
		if got < n {
			return string(buf[:got]), nil
		}
	}
}
