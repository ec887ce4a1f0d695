package scope

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"cairn/internal/vfs"
	"cairn/objects"
)

// TopLevelLeftOut are the names a record never holds at the top of the
// workspace, whatever .gitignore says.
var TopLevelLeftOut = []string{".git", ".ssh", ".workcell", ".env", ".npmrc", ".pypirc", ".netrc"}

// Options rule a walk.
type Options struct {
	// StateDir is the absolute path of cairn's state folder: nothing
	// inside it is ever walked. Empty: none.
	StateDir string
	// MaxFiles and MaxBytes bound the files a walk covers (every covered
	// file and link counts, changed or not; a skipped file counts as a
	// file but not its bytes, which are never stored): past either the
	// walk stops with a *LimitError. Zero: no bound.
	MaxFiles int
	MaxBytes int64
	// MaxFileBytes: a file larger than this is listed with Skipped set
	// and never read. Zero: no bound.
	MaxFileBytes int64
	// Cache, when set, gives the hash of a file whose stat data it holds
	// (and is not racy), and learns the hashes the walk reads.
	Cache *Cache
	// Hash, when set, reads a file the walk must hash (instead of a plain
	// SHA-256), so a caller can store its content in the same read: it
	// must return the SHA-256 of all of r (objects.Store.Put does).
	Hash func(rel string, r io.Reader) (objects.ID, error)
	// Flush, when set, is called once the walk has read every file and
	// before the cache learns their hashes; its error fails the walk. A
	// caller whose Hash stores contents without making each durable (an
	// objects.Batch) makes them durable here, so the cache only ever
	// learns the hash of a durable object.
	Flush func() error
}

// Entry is one file, link or folder a walk covers.
type Entry struct {
	// Path is slash-separated and relative to the root.
	Path string
	// Mode holds the type bits (fs.ModeDir, fs.ModeSymlink, or none for a
	// regular file) and the permission bits.
	Mode fs.FileMode
	Size int64
	// MtimeNS and CtimeNS are the stat times in nanoseconds since 1970
	// (zero for a folder, as its Size).
	MtimeNS, CtimeNS int64
	Ino              uint64
	// Hash is the SHA-256 of the content (a regular file) or of the
	// target text (a link); zero for a folder or a skipped file.
	Hash objects.ID
	// Link is a link's target.
	Link string
	// Skipped says why a regular file was not read (its Hash is zero):
	// "max_file_bytes" (over Options.MaxFileBytes) or "unreadable" (no
	// permission, or it vanished while read). Empty: read.
	Skipped string
}

// IsDir reports whether e is a folder.
func (e *Entry) IsDir() bool { return e.Mode.IsDir() }

// Exec reports whether e is a regular file with an executable bit, the
// one permission bit records keep.
func (e *Entry) Exec() bool { return e.Mode.IsRegular() && e.Mode&0o111 != 0 }

// LimitError says a walk passed one of its limits.
type LimitError struct {
	// Limit is "max_files" or "max_bytes", the words of records' "why".
	Limit string
	// Path is where the walk was when it passed it.
	Path string
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("scope: the workspace passes %s (at %s)", e.Limit, e.Path)
}

// Walk lists every entry a whole-workspace record covers under the folder
// root (an absolute path), with the rules of the package doc. With
// opts.Cache it hashes only files whose stat data the cache does not hold,
// and the cache learns the walk's hashes.
func Walk(ctx context.Context, root string, opts Options) (*Tree, error) {
	w, err := newWalker(ctx, root, opts)
	if err != nil {
		return nil, err
	}
	var st unix.Stat_t
	if err := unix.Lstat(w.root, &st); err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: w.root, Err: err}
	}
	w.spawn("", st, nil, false)
	t, err := w.finish()
	if err == nil && opts.Cache != nil {
		opts.Cache.learn(w.gen, w.stamp, w.read, w.hits, nil)
	}
	return t, err
}

// walker is one walk in progress: folders are read by up to walkWorkers
// goroutines at once, each keeping a folder's entries in one batch.
type walker struct {
	ctx    context.Context
	cancel context.CancelFunc
	root   string
	dev    uint64
	opts   Options
	start  time.Time
	// state folder, by relative path (when inside) and by device/inode.
	stateRel      string
	stateDev      uint64
	stateIno      uint64
	hasStateInode bool

	// The folders waiting to be read (last in, first out: the walk goes
	// deep first and the queue stays short), read by up to walkWorkers
	// goroutines that each take the next one; pending counts the folders
	// queued or being read, so the workers know when the walk is done.
	qmu     sync.Mutex
	qcond   sync.Cond
	queue   []dirTask
	pending int
	idle    int // workers waiting for a folder
	workers int
	wg      sync.WaitGroup
	bufs    sync.Pool // *[]byte read buffers
	// noHash: list only (the watcher's folder scan); onDir, when set, is
	// called before a folder is listed and may refuse it.
	noHash bool
	onDir  func(rel string) bool

	// linked: a regular file walked has a link count over one.
	linked atomic.Bool

	// gen and stamp of this walk for the cache; read: the files it
	// hashed, for the cache to learn; hits: the files the cache gave.
	gen   uint32
	stamp int64
	read  []Entry
	hits  int

	mu      sync.Mutex
	entries []Entry            // single entries (WalkPaths, Rescan)
	outs    map[string]*dirOut // by folder
	count   int                // entries in outs
	files   int
	bytes   int64
	err     error
}

// walkWorkers bounds the goroutines reading folders at once. The walk is
// bound by stat, getdents and read system calls, which run in parallel in
// the kernel: on a copy of GOROOT/src (11,478 files) on the 2-core
// machine of the note, medians of 7 warm walks (stat cache) 527 ms one
// folder at a time against 297 ms with 4, cold walks 3,621 ms against
// 3,261 ms (the machine was shared and loaded; the ratio is the figure).
// The workers are goroutines of the standard library and x/sys/unix: no
// walker library is needed for a pool this simple. They are started once
// per walk and take folders from its queue: a goroutine per folder (as
// before) cost the Go scheduler about a thread wake-up per folder: some
// 2,800 context switches per warm walk of the 50,000-file tree of B2
// (2,658 folders), 1,200 with the pool.
func walkWorkers() int { return min(runtime.GOMAXPROCS(0)*2, 16) }

func newWalker(ctx context.Context, root string, opts Options) (*walker, error) {
	if !filepath.IsAbs(root) {
		return nil, fmt.Errorf("scope: walk root %q is not absolute", root)
	}
	root = filepath.Clean(root)
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r // a workspace reached through a link: walk the folder itself
	}
	ctx, cancel := context.WithCancel(ctx)
	w := &walker{ctx: ctx, cancel: cancel, root: root, opts: opts, start: time.Now(),
		outs: map[string]*dirOut{}}
	w.qcond.L = &w.qmu
	w.stamp = stampOf(w.start)
	if opts.Cache != nil {
		w.gen = opts.Cache.gen + 1
	}
	var st unix.Stat_t
	if err := unix.Stat(w.root, &st); err != nil {
		cancel()
		return nil, &fs.PathError{Op: "stat", Path: w.root, Err: err}
	}
	w.dev = uint64(st.Dev)
	if opts.StateDir != "" {
		if rel, err := filepath.Rel(w.root, filepath.Clean(opts.StateDir)); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			w.stateRel = filepath.ToSlash(rel)
		}
		if err := unix.Stat(opts.StateDir, &st); err == nil {
			w.stateDev, w.stateIno, w.hasStateInode = uint64(st.Dev), uint64(st.Ino), true
		}
	}
	return w, nil
}

// fail records the first error and stops the walk.
func (w *walker) fail(err error) {
	w.mu.Lock()
	if w.err == nil {
		w.err = err
	}
	w.mu.Unlock()
	w.cancel()
}

// dirTask is a folder waiting to be read: rel with its lstat st, the
// .gitignore files above it, and skipIgnore (below a named folder,
// .gitignore does not apply: WalkPaths).
type dirTask struct {
	rel        string
	st         unix.Stat_t
	stack      []*ignoreFile
	skipIgnore bool
}

// spawn queues folder rel (st its lstat) for the walk's workers, waking an
// idle one or starting one while fewer than walkWorkers run.
func (w *walker) spawn(rel string, st unix.Stat_t, stack []*ignoreFile, skipIgnore bool) {
	w.qmu.Lock()
	w.queue = append(w.queue, dirTask{rel, st, stack, skipIgnore})
	w.pending++
	switch {
	case w.idle > 0:
		w.qcond.Signal()
	case w.workers < walkWorkers():
		w.workers++
		w.wg.Go(w.work)
	}
	w.qmu.Unlock()
}

// work reads queued folders until none is queued or being read.
func (w *walker) work() {
	w.qmu.Lock()
	defer w.qmu.Unlock()
	for {
		for len(w.queue) == 0 && w.pending > 0 {
			w.idle++
			w.qcond.Wait()
			w.idle--
		}
		if len(w.queue) == 0 {
			// pending is 0: all is read. A later spawn (the next path
			// of WalkPaths or Rescan) starts workers again.
			w.workers--
			return
		}
		t := w.queue[len(w.queue)-1]
		w.queue[len(w.queue)-1] = dirTask{}
		w.queue = w.queue[:len(w.queue)-1]
		w.qmu.Unlock()
		w.dir(t.rel, t.st, t.stack, t.skipIgnore)
		w.qmu.Lock()
		// The folder's subfolders are queued (pending counts them) before
		// it stops counting: pending is 0 only when all is read.
		if w.pending--; w.pending == 0 {
			w.qcond.Broadcast()
		}
	}
}

func (w *walker) finish() (*Tree, error) {
	w.wg.Wait()
	defer w.cancel()
	if w.err != nil {
		return nil, w.err
	}
	if err := w.ctx.Err(); err != nil {
		return nil, err // cancelled by the caller
	}
	if w.opts.Flush != nil {
		if err := w.opts.Flush(); err != nil {
			return nil, err
		}
	}
	var entries []Entry
	if len(w.entries) == 0 && w.outs[""] != nil {
		// A whole walk: put the folders' sorted batches in path order.
		entries = w.flatten("", make([]Entry, 0, w.count))
	} else {
		for i := range w.entries {
			if !w.nested(&w.entries[i]) {
				entries = append(entries, w.entries[i])
			}
		}
		for _, o := range w.outs {
			for i := range o.entries {
				if !w.nested(&o.entries[i]) {
					entries = append(entries, o.entries[i])
				}
			}
		}
		slices.SortFunc(entries, func(a, b Entry) int { return strings.Compare(a.Path, b.Path) })
	}
	t := newTree(entries, w.files, w.bytes)
	t.HardLinked = w.linked.Load()
	return t, nil
}

func (w *walker) abs(rel string) string {
	if rel == "" {
		return w.root
	}
	return w.root + "/" + rel
}

func join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// leftOut reports whether a walk never holds the entry rel, whatever
// .gitignore says: the top-level names, the state folder, cairn's temp
// files, special files, folders of another filesystem.
func (w *walker) leftOut(rel, name string, st *unix.Stat_t) bool {
	if !strings.Contains(rel, "/") && slices.Contains(TopLevelLeftOut, name) {
		return true
	}
	if w.stateRel != "" && rel == w.stateRel {
		return true
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		return vfs.IsTemp(name)
	case unix.S_IFLNK:
		return false
	case unix.S_IFDIR:
		if uint64(st.Dev) != w.dev {
			return true
		}
		return w.hasStateInode && uint64(st.Dev) == w.stateDev && uint64(st.Ino) == w.stateIno
	}
	return true
}

// dir reads folder rel and covers what it holds; it has been checked
// (not left out, not ignored) and its own Entry is already listed.
func (w *walker) dir(rel string, st unix.Stat_t, stack []*ignoreFile, skipIgnore bool) {
	if w.ctx.Err() != nil {
		return
	}
	if w.onDir != nil && !w.onDir(rel) {
		return
	}
	fd, err := unix.Open(w.abs(rel), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		if err == unix.ENOENT || err == unix.ENOTDIR || err == unix.ELOOP {
			return // gone or replaced while walked
		}
		if err == unix.EACCES || err == unix.EPERM {
			return // unreadable: listed, what it holds cannot be covered
		}
		w.fail(&fs.PathError{Op: "open", Path: w.abs(rel), Err: err})
		return
	}
	defer unix.Close(fd)
	var fst unix.Stat_t
	if err := unix.Fstat(fd, &fst); err != nil || fst.Ino != st.Ino || fst.Dev != st.Dev {
		return // replaced between the lstat and the open
	}
	// Each entry's path is made once, its name a part of it.
	prefix := rel + "/"
	if rel == "" {
		prefix = ""
	}
	rels, err := w.readNames(fd, prefix, nil)
	if err != nil {
		w.fail(&fs.PathError{Op: "readdir", Path: w.abs(rel), Err: err})
		return
	}
	has := func(name string) bool {
		return slices.ContainsFunc(rels, func(p string) bool { return p[len(prefix):] == name })
	}
	if rel != "" && has(".git") {
		// A nested repository: its own entry, listed by its parent, goes
		// too (finish leaves it out).
		w.mu.Lock()
		w.outs[rel] = &dirOut{nested: true}
		w.mu.Unlock()
		return
	}
	if !skipIgnore && has(".gitignore") {
		stack = loadIgnore(fd, rel, stack)
	}
	slices.Sort(rels) // by name: they share the prefix
	var cur *cacheCursor
	if w.opts.Cache != nil {
		cur = w.opts.Cache.cursor(rel)
	}
	batch := make([]Entry, 0, len(rels))
	var files, hits int
	var bytes int64
	type sub struct {
		rel string
		st  unix.Stat_t
		at  int // its Entry in batch
	}
	var subs []sub
	for _, crel := range rels {
		if w.ctx.Err() != nil {
			return
		}
		name := crel[len(prefix):]
		var cst unix.Stat_t
		if err := fstatat0(fd, name, &cst); err != nil {
			if err == unix.ENOENT {
				continue
			}
			w.fail(&fs.PathError{Op: "lstat", Path: w.abs(crel), Err: err})
			return
		}
		if w.leftOut(crel, name, &cst) {
			continue
		}
		isDir := cst.Mode&unix.S_IFMT == unix.S_IFDIR
		if !skipIgnore && ignored(stack, crel, isDir) {
			continue
		}
		e := entryOf(crel, &cst)
		switch {
		case isDir:
			subs = append(subs, sub{crel, cst, len(batch)})
		case e.Mode&fs.ModeSymlink != 0:
			target, err := readlinkAt(fd, name)
			if err != nil {
				if err == unix.ENOENT || err == unix.EINVAL {
					continue
				}
				w.fail(&fs.PathError{Op: "readlink", Path: w.abs(crel), Err: err})
				return
			}
			e.Link = target
			e.Hash = objects.Sum([]byte(target))
			files++
			bytes += e.Size
		default:
			files++
			if cst.Nlink > 1 {
				w.linked.Store(true)
			}
			if w.opts.MaxFileBytes > 0 && e.Size > w.opts.MaxFileBytes {
				e.Skipped = "max_file_bytes"
				break
			}
			cached, err := w.hash(fd, name, &e, &cst, cur)
			if err != nil {
				if err == errGone {
					files--
					continue // removed while walked: not there
				}
				w.fail(err)
				return
			}
			if cached {
				hits++
			}
			bytes += e.Size
		}
		batch = append(batch, e)
	}
	subNames := make([]string, len(subs))
	for i, s := range subs {
		subNames[i] = s.rel[len(prefix):]
	}
	if !w.addDir(rel, batch, subNames, files, hits, bytes) {
		return
	}
	for _, s := range subs {
		w.spawn(s.rel, s.st, stack, skipIgnore)
	}
}

// addDir keeps folder rel's entries (sorted by name) and the names of the
// subfolders the walk enters, for finish to put in path order; hits is
// how many of its files the cache gave.
func (w *walker) addDir(rel string, batch []Entry, subs []string, files, hits int, bytes int64) bool {
	// Subfolders in the order of name + "/" ("b.d/" before "b/").
	slices.SortFunc(subs, func(a, b string) int { return strings.Compare(a+"/", b+"/") })
	w.mu.Lock()
	w.outs[rel] = &dirOut{entries: batch, subs: subs}
	w.count += len(batch)
	w.hits += hits
	w.mu.Unlock()
	return w.add(nil, files, bytes, rel)
}

// dirOut is what the walk found in one folder.
type dirOut struct {
	nested  bool     // a nested repository: left out, its own entry too
	entries []Entry  // sorted by name
	subs    []string // base names of the subfolders entered, by name + "/"
}

// nested reports whether e is a folder the walk found to be a nested
// repository (after finish's wait: no lock needed).
func (w *walker) nested(e *Entry) bool {
	if !e.IsDir() {
		return false
	}
	o := w.outs[e.Path]
	return o != nil && o.nested
}

// flatten appends the entries of folder rel and of the folders under it
// in path order (byte order of the whole path): a subfolder's entries
// sort as its name with a "/" after it, among its siblings' names.
func (w *walker) flatten(rel string, out []Entry) []Entry {
	o := w.outs[rel]
	if o == nil {
		return out
	}
	cut := len(rel) + 1
	if rel == "" {
		cut = 0
	}
	j := 0
	for i := range o.entries {
		name := o.entries[i].Path[cut:]
		for j < len(o.subs) && o.subs[j]+"/" < name {
			out = w.flatten(join(rel, o.subs[j]), out)
			j++
		}
		if !w.nested(&o.entries[i]) {
			out = append(out, o.entries[i])
		}
	}
	for ; j < len(o.subs); j++ {
		out = w.flatten(join(rel, o.subs[j]), out)
	}
	return out
}

// add lists a folder's entries and checks the limits.
func (w *walker) add(batch []Entry, files int, bytes int64, rel string) bool {
	w.mu.Lock()
	w.entries = append(w.entries, batch...)
	w.files += files
	w.bytes += bytes
	var lim string
	switch {
	case w.opts.MaxFiles > 0 && w.files > w.opts.MaxFiles:
		lim = "max_files"
	case w.opts.MaxBytes > 0 && w.bytes > w.opts.MaxBytes:
		lim = "max_bytes"
	}
	w.mu.Unlock()
	if lim != "" {
		w.fail(&LimitError{Limit: lim, Path: rel})
		return false
	}
	return true
}

// entryOf is the Entry of rel from its lstat.
func entryOf(rel string, st *unix.Stat_t) Entry {
	e := Entry{Path: rel, Size: st.Size, MtimeNS: st.Mtim.Nano(), CtimeNS: st.Ctim.Nano(), Ino: uint64(st.Ino),
		Mode: fs.FileMode(st.Mode & 0o777)}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		// A folder's size and times change with its entries, which are
		// listed themselves: left zero, so a folder's Entry changes only
		// when it is replaced or its mode changes.
		e.Mode |= fs.ModeDir
		e.Size, e.MtimeNS, e.CtimeNS = 0, 0, 0
	case unix.S_IFLNK:
		e.Mode |= fs.ModeSymlink
	}
	return e
}

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

// WalkPaths lists the named paths (relative, as Scope.Paths) and, for a
// folder, everything under it: what a record of literal paths covers. A
// named path is covered even when .gitignore ignores it, and so is what is
// under a named folder; the left-out rules (nested repositories, special
// files, other filesystems, the state folder, the top-level names) still
// apply. A path that does not exist, or whose parent is not a folder, is
// absent from the Tree; a path under a link is absent too (never followed).
func WalkPaths(ctx context.Context, root string, paths []string, opts Options) (*Tree, error) {
	w, err := newWalker(ctx, root, opts)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, p := range paths {
		p = path.Clean(p)
		if p == "." || p == ".." || strings.HasPrefix(p, "../") || strings.HasPrefix(p, "/") || seen[p] {
			continue
		}
		seen[p] = true
		if coveredBy(p, paths) {
			continue // under another named folder
		}
		w.one(p, true)
	}
	t, err := w.finish()
	if err != nil {
		return nil, err
	}
	if ents := t.Entries(); len(ents) > 0 {
		linked := t.HardLinked
		t = newTree(slices.CompactFunc(ents, func(a, b Entry) bool { return a.Path == b.Path }), t.Files, t.Bytes)
		t.HardLinked = linked
	}
	if opts.Cache != nil {
		opts.Cache.learn(w.gen, w.stamp, w.read, -1, func(yield func(string) bool) {
			for _, p := range opts.Cache.pathsUnder(paths) {
				if !yield(p) {
					return
				}
			}
		})
	}
	return t, nil
}

// under reports whether p is one of paths or under one of them.
func under(p string, paths []string) bool {
	for _, q := range paths {
		q = path.Clean(q)
		if p == q || strings.HasPrefix(p, q+"/") {
			return true
		}
	}
	return false
}

// coveredBy reports whether p is strictly under another of paths.
func coveredBy(p string, paths []string) bool {
	for _, q := range paths {
		q = path.Clean(q)
		if q != "." && strings.HasPrefix(p, q+"/") {
			return true
		}
	}
	return false
}

// one covers the single path rel, and what is under it when a folder. Its
// parent folders must be real folders (not links) on the root's
// filesystem, not left out, not nested repositories. named: rel is a path
// a call names, covered with what is under it even when .gitignore ignores
// it; else (Rescan) rel and its parents are held to the .gitignore files
// of its parents, as a full walk would.
func (w *walker) one(rel string, named bool) {
	parts := strings.Split(rel, "/")
	dirfd, err := unix.Open(w.root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		w.fail(&fs.PathError{Op: "open", Path: w.root, Err: err})
		return
	}
	defer func() { unix.Close(dirfd) }()
	var stack []*ignoreFile
	if !named {
		stack = loadIgnore(dirfd, "", stack)
	}
	for i, name := range parts {
		crel := strings.Join(parts[:i+1], "/")
		var st unix.Stat_t
		if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			if err == unix.ENOENT || err == unix.ENOTDIR {
				return
			}
			w.fail(&fs.PathError{Op: "lstat", Path: w.abs(crel), Err: err})
			return
		}
		if w.leftOut(crel, name, &st) {
			return
		}
		isDir := st.Mode&unix.S_IFMT == unix.S_IFDIR
		if !named && ignored(stack, crel, isDir) {
			return
		}
		if isDir && hasGit2(dirfd, name) {
			return // a nested repository, or inside one
		}
		if i < len(parts)-1 {
			if !isDir {
				return
			}
			nfd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err != nil {
				return
			}
			unix.Close(dirfd)
			dirfd = nfd
			if !named {
				stack = loadIgnore(dirfd, crel, stack)
			}
			continue
		}
		e := entryOf(crel, &st)
		var files int
		var bytes int64
		switch {
		case isDir:
		case e.Mode&fs.ModeSymlink != 0:
			target, err := readlinkAt(dirfd, name)
			if err != nil {
				return
			}
			e.Link, e.Hash = target, objects.Sum([]byte(target))
			files, bytes = 1, e.Size
		default:
			files = 1
			if st.Nlink > 1 {
				w.linked.Store(true)
			}
			if w.opts.MaxFileBytes > 0 && e.Size > w.opts.MaxFileBytes {
				e.Skipped = "max_file_bytes"
			} else {
				bytes = e.Size
				if _, err := w.hash(dirfd, name, &e, &st, nil); err != nil {
					if err == errGone {
						return
					}
					w.fail(err)
					return
				}
			}
		}
		if !w.add([]Entry{e}, files, bytes, crel) {
			return
		}
		if isDir {
			w.dir(crel, st, stack, named)
		}
	}
}

// loadIgnore is stack with the .gitignore of folder dirfd (rel) on top,
// when it has one that is a regular file.
func loadIgnore(dirfd int, rel string, stack []*ignoreFile) []*ignoreFile {
	var st unix.Stat_t
	if unix.Fstatat(dirfd, ".gitignore", &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return stack
	}
	data, err := readAt(dirfd, ".gitignore", st.Size)
	if err != nil {
		return stack
	}
	return append(slices.Clip(stack), parseIgnore(rel, data))
}

func hasGit2(dirfd int, name string) bool {
	var st unix.Stat_t
	return unix.Fstatat(dirfd, name+"/.git", &st, unix.AT_SYMLINK_NOFOLLOW) == nil
}

// HoldsState reports whether the workspace root holds the state folder
// stateDir, is it, or lies in it: such a workspace is not recorded (the
// caller says so once, "state_folder"), and its files are fenced off from
// the state folder. Both paths are canonical (absolute, links resolved:
// the engine's Canonical), so a link to either folder counts as the
// folder; the comparison is by path alone and touches no disk.
func HoldsState(root, stateDir string) bool {
	return within(stateDir, root) || within(root, stateDir)
}

// within reports whether path p is dir or lies in it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}
