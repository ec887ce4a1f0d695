package scope

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
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
	fd, err := w.rd.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC)
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
	defer w.rd.Close(fd)
	fst, err := w.rd.Fstat(fd)
	if err != nil {
		return false, &fs.PathError{Op: "fstat", Path: w.abs(e.Path), Err: err}
	}
	if fst.Mode&unix.S_IFMT != unix.S_IFREG || fst.Ino != st.Ino {
		e.Skipped = "unreadable" // replaced while walked
		return false, nil
	}
	h, err := w.readFile(e.Path, w.fileReader(fd))
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
		n, err := w.rd.ReadDirent(fd, *bp)
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

// fileReader reads open file fd through the walk's Reader: an fdReader
// for the system's.
func (w *walker) fileReader(fd int) io.Reader {
	if _, ok := w.rd.(System); ok {
		return fdReader(fd)
	}
	return &seamReader{w.rd, fd}
}

// seamReader reads an open file descriptor through a Reader.
type seamReader struct {
	rd Reader
	fd int
}

func (r *seamReader) Read(p []byte) (int, error) { return readFD(r.rd.Read, r.fd, p) }

// fdReader reads an open file descriptor with the system's calls. Unlike
// an os.File it has no WriteTo, so io.CopyBuffer uses the walk's buffer
// instead of making one per file, and it costs no allocation or finalizer.
type fdReader int

func (r fdReader) Read(p []byte) (int, error) { return readFD(unix.Read, int(r), p) }

// readFD is one read of fd with read, retried when interrupted; io.EOF at
// the end.
func readFD(read func(int, []byte) (int, error), fd int, p []byte) (int, error) {
	for {
		n, err := read(fd, p)
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
func (w *walker) readAt(dirfd int, name string, size int64) ([]byte, error) {
	if size > 1<<20 {
		return nil, fmt.Errorf("scope: %s too large", name)
	}
	fd, err := w.rd.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC)
	if err != nil {
		return nil, err
	}
	defer w.rd.Close(fd)
	return io.ReadAll(io.LimitReader(w.fileReader(fd), 1<<20))
}

// readlinkAt is the target of link name of folder dirfd.
func (w *walker) readlinkAt(dirfd int, name string) (string, error) {
	for n := 256; ; n *= 2 {
		buf := make([]byte, n)
		got, err := w.rd.Readlinkat(dirfd, name, buf)
		if err != nil {
			return "", err
		}
		if got < n {
			return string(buf[:got]), nil
		}
	}
}
