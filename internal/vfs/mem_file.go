package vfs

import (
	"io"
	"io/fs"
	"os"
	"path"
	"syscall"
)

// memFile is an open file of a Mem. Its node stays readable and writable
// after the name is removed, as on a POSIX disk, but not after a crash.
type memFile struct {
	m      *Mem
	n      *memNode
	name   string
	flag   int
	gen    int
	off    int64
	closed bool
}

// use checks that the handle may do op and locks the Mem; callers unlock.
func (f *memFile) use(op string) error {
	f.m.mu.Lock()
	var err error
	switch {
	case f.closed:
		err = fs.ErrClosed
	case f.gen != f.m.gen || f.m.failing:
		err = ErrCrashed
	default:
		return nil
	}
	f.m.mu.Unlock()
	return &fs.PathError{Op: op, Path: f.name, Err: err}
}

func (f *memFile) readable() bool { return f.flag&os.O_WRONLY == 0 }
func (f *memFile) writable() bool { return f.flag&(os.O_WRONLY|os.O_RDWR) != 0 }

func (f *memFile) Name() string { return f.name }

func (f *memFile) Read(p []byte) (int, error) {
	if err := f.use("read"); err != nil {
		return 0, err
	}
	defer f.m.mu.Unlock()
	n, err := f.readAt("read", p, f.off)
	f.off += int64(n)
	return n, err
}

func (f *memFile) ReadAt(p []byte, off int64) (int, error) {
	if err := f.use("read"); err != nil {
		return 0, err
	}
	defer f.m.mu.Unlock()
	if off < 0 {
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: syscall.EINVAL}
	}
	n, err := f.readAt("read", p, off)
	if err == nil && n < len(p) {
		err = io.EOF
	}
	return n, err
}

func (f *memFile) readAt(op string, p []byte, off int64) (int, error) {
	switch {
	case f.n.isDir():
		return 0, &fs.PathError{Op: op, Path: f.name, Err: syscall.EISDIR}
	case !f.readable():
		return 0, &fs.PathError{Op: op, Path: f.name, Err: syscall.EBADF}
	case len(p) == 0:
		return 0, nil
	case off >= int64(len(f.n.data)):
		return 0, io.EOF
	}
	return copy(p, f.n.data[off:]), nil
}

func (f *memFile) Write(p []byte) (int, error) {
	if err := f.use("write"); err != nil {
		return 0, err
	}
	defer f.m.mu.Unlock()
	if !f.writable() {
		return 0, &fs.PathError{Op: "write", Path: f.name, Err: syscall.EBADF}
	}
	if f.flag&os.O_APPEND != 0 {
		f.off = int64(len(f.n.data))
	}
	end := f.off + int64(len(p))
	if end > int64(len(f.n.data)) {
		f.n.data = grow(f.n.data, end)
	}
	copy(f.n.data[f.off:], p)
	f.off = end
	f.n.mtime = f.m.tick()
	return len(p), nil
}

// grow extends data with zeros to size, never sharing memory with the
// durable copy.
func grow(data []byte, size int64) []byte {
	if int64(cap(data)) >= size {
		return data[:size]
	}
	nd := make([]byte, size, max(size, 2*int64(cap(data))))
	copy(nd, data)
	return nd
}

func (f *memFile) Seek(offset int64, whence int) (int64, error) {
	if err := f.use("seek"); err != nil {
		return 0, err
	}
	defer f.m.mu.Unlock()
	switch whence {
	case io.SeekCurrent:
		offset += f.off
	case io.SeekEnd:
		offset += int64(len(f.n.data))
	case io.SeekStart:
	default:
		return 0, &fs.PathError{Op: "seek", Path: f.name, Err: syscall.EINVAL}
	}
	if offset < 0 {
		return 0, &fs.PathError{Op: "seek", Path: f.name, Err: syscall.EINVAL}
	}
	f.off = offset
	return offset, nil
}

func (f *memFile) Truncate(size int64) error {
	if err := f.use("truncate"); err != nil {
		return err
	}
	defer f.m.mu.Unlock()
	if !f.writable() || size < 0 {
		return &fs.PathError{Op: "truncate", Path: f.name, Err: syscall.EINVAL}
	}
	if size <= int64(len(f.n.data)) {
		f.n.data = f.n.data[:size:size]
	} else {
		f.n.data = grow(f.n.data, size)
	}
	f.n.mtime = f.m.tick()
	return nil
}

// Sync makes the file's data durable, or a folder's entries like SyncDir.
// It counts towards Mem.Syncs.
func (f *memFile) Sync() error {
	if err := f.use("sync"); err != nil {
		return err
	}
	defer f.m.mu.Unlock()
	if f.n.isDir() {
		f.n.syncEntries()
	} else {
		f.n.durable = append([]byte(nil), f.n.data...)
	}
	f.m.synced()
	return nil
}

func (f *memFile) Stat() (fs.FileInfo, error) {
	if err := f.use("stat"); err != nil {
		return nil, err
	}
	defer f.m.mu.Unlock()
	return f.n.info(path.Base(f.name)), nil
}

// Close closes the handle. Closing a handle from before a crash is not an
// error, so deferred closes stay quiet.
func (f *memFile) Close() error {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	if f.closed {
		return &fs.PathError{Op: "close", Path: f.name, Err: fs.ErrClosed}
	}
	f.closed = true
	return nil
}

// memLock is a lock held on a Mem file.
type memLock struct {
	f        *memFile
	released bool
	shared   bool // a LockShared lock, counted in Mem.shared
}

func (l *memLock) File() File { return l.f }

// Release gives up the lock. After a crash it only closes the file: the
// crash released the lock already.
func (l *memLock) Release() error {
	m := l.f.m
	m.mu.Lock()
	if l.released {
		m.mu.Unlock()
		return &fs.PathError{Op: "release", Path: l.f.name, Err: fs.ErrClosed}
	}
	l.released = true
	switch {
	case l.shared && l.f.gen == m.gen && m.shared[l.f.n] > 0:
		if m.shared[l.f.n]--; m.shared[l.f.n] == 0 {
			delete(m.shared, l.f.n)
		}
	case !l.shared && m.locks[l.f.n] == l:
		delete(m.locks, l.f.n)
	}
	m.mu.Unlock()
	l.f.Close()
	return nil
}
