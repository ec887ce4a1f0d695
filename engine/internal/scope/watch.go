package scope

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"golang.org/x/sys/unix"
)

// Watcher marks the paths under a workspace that changed since the last
// Dirty, with fsnotify (inotify on Linux: one watch per folder).
//
// It watches every folder a walk covers, adding a watch on a folder before
// listing it, so a subfolder made meanwhile is either listed or reported.
// A folder created later is watched when its event arrives, with what it
// holds. A folder moved away drops its watches (and its subfolders'), as
// they would report under the old names.
type Watcher struct {
	root   string
	opts   Options
	fw     *fsnotify.Watcher
	add    func(string) error
	fence  string // a folder of ours outside the tree, for Dirty's barrier
	done   chan struct{}
	closed sync.Once

	mu      sync.Mutex
	dirty   map[string]bool
	full    bool  // a full walk is needed (start, overflow, error, rules)
	resync  bool  // the watch list must be rebuilt before the next Dirty
	broken  error // cannot cover the tree: every Dirty is full
	watched watchSet
	fences  map[string]chan struct{}
	seq     int
}

// fenceTimeout bounds Dirty's wait for its own barrier event: past it, the
// answer is a full walk.
const fenceTimeout = 5 * time.Second

// Watch starts watching the tree under root (an absolute path), minus the
// folders a walk leaves out or .gitignore ignores. Close ends it. The
// barrier folder Dirty uses is made under os.TempDir.
func Watch(ctx context.Context, root string, opts Options) (*Watcher, error) {
	return watch(ctx, root, opts, nil)
}

// watch is Watch with the function that adds a watch (nil: fsnotify's),
// for tests of a watcher that cannot cover the tree.
func watch(ctx context.Context, root string, opts Options, add func(string) error) (*Watcher, error) {
	if !filepath.IsAbs(root) {
		return nil, fmt.Errorf("scope: watch root %q is not absolute", root)
	}
	fw, err := fsnotify.NewBufferedWatcher(4096)
	if err != nil {
		return nil, err
	}
	fence, err := os.MkdirTemp("", "cairn-watch-")
	if err != nil {
		fw.Close()
		return nil, err
	}
	root = filepath.Clean(root)
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r // as the walk does
	}
	w := &Watcher{root: root, opts: opts, fw: fw, fence: fence, done: make(chan struct{}),
		dirty: map[string]bool{}, full: true, watched: newWatchSet(), fences: map[string]chan struct{}{}}
	w.add = fw.Add
	if add != nil {
		w.add = add
	}
	if err := fw.Add(fence); err != nil {
		w.Close()
		return nil, err
	}
	go w.loop()
	w.addTree(ctx, "")
	return w, nil
}

// Close stops the watcher and removes its barrier folder.
func (w *Watcher) Close() error {
	var err error
	w.closed.Do(func() {
		err = w.fw.Close()
		<-w.done
		os.RemoveAll(w.fence)
	})
	return err
}

// Dirty returns the paths (relative, sorted) changed since the last call,
// and clears them; full is true when a full walk is needed instead: at the
// first call, after an overflow or an error, when the watcher cannot cover
// the tree, or when a .gitignore or .git changed. It first waits until
// every change made before the call has reached the watcher: it makes a
// file in its barrier folder and waits for that event, which the kernel
// queues after every earlier one.
func (w *Watcher) Dirty(ctx context.Context) (dirty []string, full bool, err error) {
	if err := w.barrier(ctx); err != nil {
		w.mu.Lock()
		w.full = true
		w.mu.Unlock()
		if ctx.Err() != nil {
			return nil, true, ctx.Err()
		}
	}
	w.mu.Lock()
	resync := w.resync
	w.resync = false
	w.mu.Unlock()
	if resync {
		w.addTree(ctx, "")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.broken != nil || w.full {
		w.full = false
		clear(w.dirty)
		return nil, true, nil
	}
	for p := range w.dirty {
		dirty = append(dirty, p)
	}
	clear(w.dirty)
	slices.Sort(dirty)
	return dirty, false, nil
}

// Broken is why the watcher cannot cover the tree (nil when it can).
func (w *Watcher) Broken() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.broken
}

func (w *Watcher) barrier(ctx context.Context) error {
	w.mu.Lock()
	w.seq++
	name := fmt.Sprintf("f%d", w.seq)
	ch := make(chan struct{})
	w.fences[name] = ch
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		delete(w.fences, name)
		w.mu.Unlock()
	}()
	p := filepath.Join(w.fence, name)
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		return err
	}
	defer os.Remove(p)
	t := time.NewTimer(fenceTimeout)
	defer t.Stop()
	select {
	case <-ch:
		return nil
	case <-w.done:
		return errors.New("scope: watcher closed")
	case <-t.C:
		return errors.New("scope: watcher barrier timed out")
	case <-ctx.Done():
		return ctx.Err()
	}
}

// loop takes the watcher's events until it is closed.
func (w *Watcher) loop() {
	defer close(w.done)
	for {
		select {
		case ev, ok := <-w.fw.Events:
			if !ok {
				return
			}
			w.event(ev)
		case err, ok := <-w.fw.Errors:
			if !ok {
				return
			}
			// An overflow lost events (and maybe folders to watch);
			// any other error may have too.
			_ = err
			w.mu.Lock()
			w.full = true
			w.resync = true
			w.mu.Unlock()
		}
	}
}

func (w *Watcher) event(ev fsnotify.Event) {
	if filepath.Dir(ev.Name) == w.fence {
		if ev.Has(fsnotify.Create) {
			w.mu.Lock()
			if ch, ok := w.fences[filepath.Base(ev.Name)]; ok {
				close(ch)
				delete(w.fences, filepath.Base(ev.Name))
			}
			w.mu.Unlock()
		}
		return
	}
	rel, err := filepath.Rel(w.root, ev.Name)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return
	}
	rel = filepath.ToSlash(rel)
	base := filepath.Base(rel)
	w.mu.Lock()
	if rel == "." || base == ".gitignore" || base == ".git" {
		w.full = true
		w.resync = true
	} else {
		w.dirty[rel] = true
	}
	var drop []string
	if ev.Has(fsnotify.Rename) || ev.Has(fsnotify.Remove) {
		// Watches under a folder moved away report under the old names.
		for _, p := range w.watched.atOrUnder(rel) {
			w.watched.remove(p)
			if p != rel || ev.Has(fsnotify.Rename) {
				drop = append(drop, p)
			}
		}
	}
	w.mu.Unlock()
	for _, p := range drop {
		w.fw.Remove(w.abs(p)) // gone already (ErrNonExistentWatch) is fine
	}
	if ev.Has(fsnotify.Create) {
		var st unix.Stat_t
		if unix.Lstat(ev.Name, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
			w.addTree(context.Background(), rel)
		}
	}
}

func (w *Watcher) abs(rel string) string {
	if rel == "" {
		return w.root
	}
	return w.root + "/" + rel
}

// addTree watches folder rel and every folder under it a walk covers, a
// watch before each listing. A folder the walk would not enter (ignored,
// left out, a nested repository) is not watched.
func (w *Watcher) addTree(ctx context.Context, rel string) {
	wk, err := newWalker(ctx, w.root, Options{StateDir: w.opts.StateDir})
	if err != nil {
		w.fail(err)
		return
	}
	wk.onDir = func(dir string) bool {
		w.mu.Lock()
		seen := w.watched.has(dir)
		w.mu.Unlock()
		if seen {
			return true
		}
		if err := w.add(w.abs(dir)); err != nil {
			if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
				return false
			}
			w.fail(err)
			return false
		}
		w.mu.Lock()
		w.watched.add(dir)
		w.mu.Unlock()
		return true
	}
	wk.noHash = true
	if rel == "" {
		var st unix.Stat_t
		if err := unix.Lstat(w.root, &st); err != nil {
			w.fail(err)
			return
		}
		wk.spawn("", st, nil, false)
	} else {
		wk.one(rel, false)
	}
	if _, err := wk.finish(); err != nil {
		w.fail(err)
	}
}

// fail marks the watcher unable to cover the tree (a watch limit, an
// error): every Dirty from now on asks for a full walk.
func (w *Watcher) fail(err error) {
	w.mu.Lock()
	if w.broken == nil {
		w.broken = err
	}
	w.mu.Unlock()
}
