package vfs

import (
	"io/fs"
	"os"
	"path"
	"slices"
	"sync"
	"syscall"
	"time"
)

// Mem is an FS in memory that remembers what is durable, so tests can
// simulate power loss with Crash and CrashPartial. It is safe for concurrent
// use. Permission bits are kept but not enforced; new files and folders
// lose the bits of its umask (022 unless SetUmask says otherwise), as on a
// disk. A file's mode is durable at once, its data and its folder entry
// only when synced.
type Mem struct {
	mu   sync.Mutex
	root *memNode
	now  func() time.Time
	last time.Time // last modification time handed out

	gen       int       // bumped by each crash and kill; handles of an older gen fail
	booted    time.Time // the time of the last crash (Booted)
	syncs     int
	failAfter int // successful syncs left before failing; -1 when off
	failing   bool
	locks     map[*memNode]*memLock
	shared    map[*memNode]int // holders of each shared lock (shared.go)
	umask     fs.FileMode
}

// NewMem returns an empty Mem: only the root folder ".", which always exists.
func NewMem() *Mem {
	m := &Mem{now: time.Now, failAfter: -1, locks: map[*memNode]*memLock{}, umask: 0o022}
	m.root = newDir(DirPerm, m.tick())
	return m
}

// SetClock replaces the clock modification times come from (time.Now by
// default). Times handed out still strictly increase, by a nanosecond at
// least, so every write changes ModTime.
func (m *Mem) SetClock(now func() time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.now = now
}

// SetUmask sets the creation mask of new files and folders (umask(2)).
func (m *Mem) SetUmask(mask fs.FileMode) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.umask = mask & fs.ModePerm
}

// Umask is the creation mask of new files and folders.
func (m *Mem) Umask() fs.FileMode {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.umask
}

// tick returns the time of a modification. Callers hold m.mu.
func (m *Mem) tick() time.Time {
	t := m.now()
	if !t.After(m.last) {
		t = m.last.Add(time.Nanosecond)
	}
	m.last = t
	return t
}

// check fails every operation after FailAfterSyncs ran out. Callers hold m.mu.
func (m *Mem) check(op, name string) error {
	if m.failing {
		return &fs.PathError{Op: op, Path: name, Err: ErrCrashed}
	}
	return nil
}

func (m *Mem) OpenFile(name string, flag int, perm fs.FileMode) (File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.openFile("open", name, flag, perm)
}

func (m *Mem) openFile(op, name string, flag int, perm fs.FileMode) (*memFile, error) {
	if err := m.check(op, name); err != nil {
		return nil, err
	}
	fd, err := m.walk(op, name, true)
	if err != nil {
		return nil, err
	}
	perr := func(err error) (*memFile, error) { return nil, &fs.PathError{Op: op, Path: name, Err: err} }
	n := fd.node
	writable := flag&(os.O_WRONLY|os.O_RDWR) != 0
	switch {
	case n == nil && flag&os.O_CREATE == 0:
		return perr(syscall.ENOENT)
	case n == nil:
		n = &memNode{mode: perm & fs.ModePerm &^ m.umask, mtime: m.tick()}
		fd.dir.change(dirChange{names: []string{fd.base}, nodes: []*memNode{n}}, n.mtime)
	case flag&os.O_CREATE != 0 && flag&os.O_EXCL != 0:
		return perr(syscall.EEXIST)
	case n.isDir() && (writable || flag&os.O_TRUNC != 0):
		return perr(syscall.EISDIR)
	case flag&os.O_TRUNC != 0 && writable && len(n.data) > 0:
		n.data = n.data[:0:0]
		n.mtime = m.tick()
	}
	return &memFile{m: m, n: n, name: name, flag: flag, gen: m.gen}, nil
}

func (m *Mem) Stat(name string) (fs.FileInfo, error)  { return m.stat("stat", name, true) }
func (m *Mem) Lstat(name string) (fs.FileInfo, error) { return m.stat("lstat", name, false) }

func (m *Mem) stat(op, name string, follow bool) (fs.FileInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.lookup(op, name, follow)
	if err != nil {
		return nil, err
	}
	return n.info(path.Base(name)), nil
}

// lookup resolves name to an existing node. Callers hold m.mu.
func (m *Mem) lookup(op, name string, follow bool) (*memNode, error) {
	if err := m.check(op, name); err != nil {
		return nil, err
	}
	fd, err := m.walk(op, name, follow)
	if err != nil {
		return nil, err
	}
	if fd.node == nil {
		return nil, &fs.PathError{Op: op, Path: name, Err: syscall.ENOENT}
	}
	return fd.node, nil
}

func (m *Mem) ReadDir(name string) ([]fs.DirEntry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.lookup("readdir", name, true)
	if err != nil {
		return nil, err
	}
	if !n.isDir() {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: syscall.ENOTDIR}
	}
	names := make([]string, 0, len(n.entries))
	for k := range n.entries {
		names = append(names, k)
	}
	slices.Sort(names)
	ents := make([]fs.DirEntry, len(names))
	for i, k := range names {
		ents[i] = fs.FileInfoToDirEntry(n.entries[k].info(k))
	}
	return ents, nil
}

func (m *Mem) MkdirAll(name string, perm fs.FileMode) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.mkdirAll(name, perm)
}

func (m *Mem) mkdirAll(name string, perm fs.FileMode) error {
	if err := m.check("mkdir", name); err != nil {
		return err
	}
	fd, err := m.walk("mkdir", name, true)
	if IsNotExist(err) && path.Dir(name) != name {
		if err := m.mkdirAll(path.Dir(name), perm); err != nil {
			return err
		}
		fd, err = m.walk("mkdir", name, true)
	}
	switch {
	case err != nil:
		return err
	case fd.node != nil && fd.node.isDir():
		return nil
	case fd.node != nil:
		return &fs.PathError{Op: "mkdir", Path: name, Err: syscall.ENOTDIR}
	}
	d := newDir(perm&^m.umask, m.tick())
	fd.dir.change(dirChange{names: []string{fd.base}, nodes: []*memNode{d}}, d.mtime)
	return nil
}

func (m *Mem) Remove(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check("remove", name); err != nil {
		return err
	}
	fd, err := m.walk("remove", name, false)
	switch {
	case err != nil:
		return err
	case fd.dir == nil:
		err = syscall.EINVAL
	case fd.node == nil:
		err = syscall.ENOENT
	case fd.node.isDir() && len(fd.node.entries) > 0:
		err = syscall.ENOTEMPTY
	default:
		fd.dir.change(dirChange{names: []string{fd.base}, nodes: []*memNode{nil}}, m.tick())
		return nil
	}
	return &fs.PathError{Op: "remove", Path: name, Err: err}
}

// Exchange swaps two names of one folder; Mem refuses folders.
func (m *Mem) Exchange(a, b string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check("exchange", a); err != nil {
		return err
	}
	perr := func(err error) error {
		return &os.LinkError{Op: "exchange", Old: a, New: b, Err: err}
	}
	x, err := m.walk("exchange", a, false)
	if err != nil {
		return err
	}
	y, err := m.walk("exchange", b, false)
	if err != nil {
		return err
	}
	switch {
	case x.dir == nil || y.dir == nil || x.dir != y.dir:
		return perr(syscall.EINVAL)
	case x.node == nil || y.node == nil:
		return perr(syscall.ENOENT)
	case x.node.isDir() || y.node.isDir():
		return perr(syscall.EISDIR)
	case x.node == y.node:
		return nil
	}
	x.dir.change(dirChange{names: []string{x.base, y.base}, nodes: []*memNode{y.node, x.node}}, m.tick())
	return nil
}

func (m *Mem) Rename(oldname, newname string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check("rename", oldname); err != nil {
		return err
	}
	perr := func(err error) error {
		return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: err}
	}
	from, err := m.walk("rename", oldname, false)
	if err != nil {
		return err
	}
	to, err := m.walk("rename", newname, false)
	if err != nil {
		return err
	}
	switch {
	case from.dir == nil || to.dir == nil:
		return perr(syscall.EINVAL)
	case from.node == nil:
		return perr(syscall.ENOENT)
	case from.node == to.node:
		return nil
	case to.node != nil && to.node.isDir():
		return perr(syscall.EEXIST)
	case to.node != nil && from.node.isDir():
		return perr(syscall.ENOTDIR)
	case from.node.isDir() && m.inside(to.dir, from.node):
		return perr(syscall.EINVAL)
	}
	now := m.tick()
	if from.dir == to.dir {
		from.dir.change(dirChange{names: []string{from.base, to.base}, nodes: []*memNode{nil, from.node}}, now)
		return nil
	}
	to.dir.change(dirChange{names: []string{to.base}, nodes: []*memNode{from.node}}, now)
	from.dir.change(dirChange{names: []string{from.base}, nodes: []*memNode{nil}}, now)
	return nil
}

// inside reports whether folder d is dir or lies below it. Callers hold m.mu.
func (m *Mem) inside(d, dir *memNode) bool {
	if d == dir {
		return true
	}
	for _, c := range dir.entries {
		if c.isDir() && m.inside(d, c) {
			return true
		}
	}
	return false
}

// SyncFS opens a handle whose Sync makes the data of every file of the
// Mem durable, as File.Sync of each would (FSSyncer); folder entries stay
// as they are. A Sync counts as one sync for FailAfterSyncs. A crash
// fails the handle, as any other.
func (m *Mem) SyncFS(name string) (FSSync, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.lookup("syncfs", name, true)
	if err != nil {
		return nil, err
	}
	if !n.isDir() {
		return nil, &fs.PathError{Op: "syncfs", Path: name, Err: syscall.ENOTDIR}
	}
	return &memSync{m: m, name: name, gen: m.gen}, nil
}

// memSync is a handle of Mem.SyncFS.
type memSync struct {
	m    *Mem
	name string
	gen  int
}

func (h *memSync) Close() error { return nil }

func (h *memSync) Sync() error {
	m := h.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check("syncfs", h.name); err != nil {
		return err
	}
	if h.gen != m.gen {
		return &fs.PathError{Op: "syncfs", Path: h.name, Err: ErrCrashed}
	}
	seen := map[*memNode]bool{}
	var visit func(n *memNode)
	visit = func(n *memNode) {
		if seen[n] {
			return
		}
		seen[n] = true
		switch {
		case n.isDir():
			// Both the current entries and the durable ones: a file
			// renamed away since the folder's last sync is still data.
			for _, c := range n.entries {
				visit(c)
			}
			for _, c := range n.dEntries {
				visit(c)
			}
		case !n.isLink():
			n.durable = append([]byte(nil), n.data...)
		}
	}
	visit(m.root)
	m.synced()
	return nil
}

func (m *Mem) SyncDir(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.lookup("syncdir", name, true)
	if err != nil {
		return err
	}
	if !n.isDir() {
		return &fs.PathError{Op: "syncdir", Path: name, Err: syscall.ENOTDIR}
	}
	n.syncEntries()
	m.synced()
	return nil
}

func (m *Mem) Symlink(oldname, newname string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check("symlink", newname); err != nil {
		return err
	}
	fd, err := m.walk("symlink", newname, false)
	switch {
	case err != nil:
		return err
	case fd.dir == nil || fd.node != nil:
		return &os.LinkError{Op: "symlink", Old: oldname, New: newname, Err: syscall.EEXIST}
	}
	now := m.tick()
	l := &memNode{mode: fs.ModeSymlink | fs.ModePerm, mtime: now, target: oldname}
	fd.dir.change(dirChange{names: []string{fd.base}, nodes: []*memNode{l}}, now)
	return nil
}

func (m *Mem) Readlink(name string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.lookup("readlink", name, false)
	if err != nil {
		return "", err
	}
	if !n.isLink() {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: syscall.EINVAL}
	}
	return n.target, nil
}

func (m *Mem) Chmod(name string, mode fs.FileMode) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.lookup("chmod", name, true)
	if err != nil {
		return err
	}
	n.mode = n.mode&^fs.ModePerm | mode&fs.ModePerm
	return nil
}

// Touch sets name's modification time to the next tick (Toucher).
func (m *Mem) Touch(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.lookup("touch", name, true)
	if err != nil {
		return err
	}
	n.mtime = m.tick()
	return nil
}

// Lock locks name for one owner within the process. The lock file is
// created if needed, and like any file is durable only once synced.
func (m *Mem) Lock(name string) (Lock, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	f, err := m.openFile("lock", name, os.O_RDWR|os.O_CREATE, FilePerm)
	if err != nil {
		return nil, err
	}
	if m.locks[f.n] != nil || m.shared[f.n] > 0 {
		f.closed = true
		return nil, &fs.PathError{Op: "lock", Path: name, Err: ErrLocked}
	}
	l := &memLock{f: f}
	m.locks[f.n] = l
	return l, nil
}
