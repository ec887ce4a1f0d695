package scope

import (
	"context"
	"fmt"
	"io/fs"
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

// Walk lists every entry a whole-workspace record covers under the folder
// root (an absolute path), with the rules of the package doc. With
// opts.Cache it hashes only files whose stat data the cache does not hold,
// and the cache learns the walk's hashes.
func Walk(ctx context.Context, root string, opts Options) (*Tree, error) {
	w, err := newWalker(ctx, root, opts)
	if err != nil {
		return nil, err
	}
	st, err := w.rd.Fstatat(unix.AT_FDCWD, cstr(w.root), unix.AT_SYMLINK_NOFOLLOW)
	if err != nil {
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
	rd     Reader // opts.Read, or the System's
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
	// unread: the folders listed whose entries could not be read (under mu).
	unread []string

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
	if w.rd = opts.Read; w.rd == nil {
		w.rd = System{}
	}
	w.stamp = stampOf(w.start)
	if opts.Cache != nil {
		w.gen = opts.Cache.gen + 1
	}
	st, err := w.rd.Fstatat(unix.AT_FDCWD, w.root, 0)
	if err != nil {
		cancel()
		return nil, &fs.PathError{Op: "stat", Path: w.root, Err: err}
	}
	w.dev = uint64(st.Dev)
	if opts.StateDir != "" {
		if rel, err := filepath.Rel(w.root, filepath.Clean(opts.StateDir)); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			w.stateRel = filepath.ToSlash(rel)
		}
		if st, err := w.rd.Fstatat(unix.AT_FDCWD, opts.StateDir, 0); err == nil {
			w.stateDev, w.stateIno, w.hasStateInode = uint64(st.Dev), uint64(st.Ino), true
		}
	}
	return w, nil
}

// denied records folder rel as listed but unread (Tree.Unread).
func (w *walker) denied(rel string) {
	w.mu.Lock()
	w.unread = append(w.unread, rel)
	w.mu.Unlock()
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
	slices.Sort(w.unread)
	t.Unread = slices.Compact(w.unread)
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
	fd, err := w.rd.Openat(unix.AT_FDCWD, w.abs(rel), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC)
	if err != nil {
		if rel != "" && (gone(err) || denied(err)) {
			// Listed, but gone, replaced or unreadable once opened: what it
			// holds is unknown (not empty).
			w.denied(rel)
			return
		}
		w.fail(&fs.PathError{Op: "open", Path: w.abs(rel), Err: err})
		return
	}
	defer w.rd.Close(fd)
	fst, err := w.rd.Fstat(fd)
	if err != nil {
		w.fail(&fs.PathError{Op: "fstat", Path: w.abs(rel), Err: err})
		return
	}
	if fst.Ino != st.Ino || fst.Dev != st.Dev {
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
		if stack, err = w.loadIgnore(fd, rel, stack); err != nil {
			w.fail(err)
			return
		}
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
		cst, err := w.rd.Fstatat(fd, name, unix.AT_SYMLINK_NOFOLLOW)
		if err != nil {
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
			target, err := w.readlinkAt(fd, name)
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
