package engine

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"path"
	"time"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/fstate"
	"cairn/engine/internal/overlap"
	"cairn/engine/internal/scope"
	"cairn/objects"
)

// Capturing what a recorded call may change, before and after it, with
// package scope's walks: the named paths (a named folder all of it,
// .gitignore or not: scope.WalkPaths) or the whole workspace (scope.Walk,
// each folder's .gitignore applied, the left-out kinds left out). Before
// the call every covered file's content is stored as an object in the same
// read that hashes it; after it, the same scope is walked again and
// scope.Diff keeps what changed. The session's stat cache makes a walk
// read only the files whose stat data changed, and with a watcher
// (SessionOptions.Watch) a walk rescans only the paths marked dirty since
// the last one.
//
// Every walk stores what it reads, the one after a call too, so the stat
// cache only ever holds content that is stored: a later record whose
// "before" comes from the cache names an object that exists. A link is
// not read (its target is in the walk): the record stores the target
// before of a link the call changed, when the store lacks it.

// The stat cache of a workspace's walks is kept between processes in
// workspaces/<key>/statcache (its format: engine/internal/scope/cache.go),
// derived data: loaded by a session's first record, saved when the
// session closes if its walks changed it (atomic rename, the last writer
// wins; a session whose calls changed no file, as a test run, writes and
// syncs nothing), rebuilt by the next walk when missing or unreadable. It only ever learns hashes whose
// content its walk stored; a record checks that the object of each
// content before it names is still there (stored).
const statCacheFile = "statcache"

func statCacheName(dir string) string { return path.Join(dir, statCacheFile) }

// cacheTrust is how long a session trusts the stat cache (and the last
// walk) it holds in memory. Prune keeps the objects the cache file names
// (walk_refs.go), not those a live session learned since it loaded it; it
// removes unnamed objects once TrashDays old, so a session open that long
// (a REPL left running) must not take a content before from its memory
// that a prune may have removed: a day short of TrashDays, it loads the
// file again. Objects its walks stored since are younger than that.
const cacheTrust = trashGrace - 24*time.Hour

// callRec is a session's state for recording calls, guarded by snaps.mu.
type callRec struct {
	cache  *scope.Cache
	walked bool // the cache learned since it was loaded
	// since is when cache was loaded: a cache (and prev) held longer than
	// cacheTrust is loaded again from the file, and prev dropped.
	since time.Time
	// watch marks the workspace's dirty paths while the session runs with
	// SessionOptions.Watch, from its first whole-workspace record; prev is
	// the walk after the last call, which the next one rescans from.
	watch     *scope.Watcher
	watchFail bool // the watcher could not start: full walks from now on
	prev      *scope.Tree
	// told is the reasons of calls run without a record already shown.
	told map[string]bool
	// others is what the store budget's trims read of other sessions'
	// journals (callrec_budget.go).
	others map[string]othersRecords
}

// close stops the watcher and saves the stat cache when its walks changed
// it (Session.Close; best effort: the cache is derived).
func (c *callRec) close(w *Workspace) {
	if c.watch != nil {
		c.watch.Close()
		c.watch, c.prev = nil, nil
	}
	if c.cache != nil && c.walked && c.cache.Changed() {
		c.cache.Save(w.s.fsys, statCacheName(w.dir))
		c.walked = false
	}
}

// callCapture is the capture of one call's scope.
type callCapture struct {
	s    *Session
	sc   CallScope
	cfg  StorageConfig
	objs *objects.Store
	tree *scope.Tree // the walk before the call
	// afterTree is the walk after it, once after made it.
	afterTree *scope.Tree
}

func (c *callCapture) maxFile() int64 { return int64(c.cfg.MaxFileBytesMB) << 20 }

// options are the walks' options: the limits, the state folder left out,
// the session's cache, and every file read stored in batch b, made durable
// together at the end of the walk (before the cache learns the hashes, and
// before the line that names them is written): one sync of all their data
// and one per shard folder, not two per file.
func (c *callCapture) options(ctx context.Context, b *objects.Batch) scope.Options {
	rec := &c.s.calls
	now := c.s.ws.s.now()
	if rec.cache != nil && now.Sub(rec.since) >= cacheTrust {
		// Held long enough for a prune to have removed objects only this
		// session's memory names (prune keeps those of the file): start
		// again from the file, and walk the whole scope once more.
		rec.cache, rec.prev, rec.walked = nil, nil, false
	}
	if rec.cache == nil {
		rec.cache = scope.LoadCache(c.s.ws.s.fsys, statCacheName(c.s.ws.dir))
		rec.since = now
	}
	rec.walked = true
	return scope.Options{
		StateDir:     c.s.ws.s.home,
		MaxFiles:     c.cfg.MaxFiles,
		MaxBytes:     int64(c.cfg.MaxBytesMB) << 20,
		MaxFileBytes: c.maxFile(),
		Cache:        rec.cache,
		Hash: func(_ string, r io.Reader) (objects.ID, error) {
			info, err := b.Put(ctx, r)
			return info.ID, err
		},
		Flush: b.Commit,
	}
}

// walk walks the call's scope: the named paths, or the whole workspace
// (rescanning the dirty paths from the last walk when a watcher covers
// it), and with it the named paths when it has any (a named hard link:
// before). A walk over the limits is refused (*errRefusedRecord).
func (c *callCapture) walk(ctx context.Context) (*scope.Tree, error) {
	if c.sc.Kind == ScopePaths {
		return c.walkOne(ctx, true)
	}
	t, err := c.walkOne(ctx, false)
	if err != nil || len(c.sc.Paths) == 0 {
		return t, err
	}
	named, err := c.walkOne(ctx, true)
	if err != nil {
		return nil, err
	}
	return scope.Union(t, named), nil
}

// walkOne is one walk of walk, of the named paths or of the workspace, its
// files stored in a batch of its own.
func (c *callCapture) walkOne(ctx context.Context, named bool) (*scope.Tree, error) {
	b := c.objs.Batch()
	defer b.Abort() // a walk that failed: the temp files still held go
	opts := c.options(ctx, b)
	root := c.s.ws.path
	var t *scope.Tree
	var err error
	if named {
		t, err = scope.WalkPaths(ctx, root, c.sc.Paths, opts)
	} else {
		t, err = c.walkWorkspace(ctx, root, opts)
	}
	var le *scope.LimitError
	if errors.As(err, &le) {
		return nil, &errRefusedRecord{why: le.Limit}
	}
	return t, err
}

// walkWorkspace is a full walk, or a rescan of the dirty paths since the
// last walk when the session's watcher covers the tree.
func (c *callCapture) walkWorkspace(ctx context.Context, root string, opts scope.Options) (*scope.Tree, error) {
	rec := &c.s.calls
	if c.s.opts.Watch && rec.watch == nil && !rec.watchFail {
		w, err := scope.Watch(context.WithoutCancel(ctx), root, opts)
		if err != nil {
			rec.watchFail = true
			c.s.noticef("the workspace cannot be watched, so each record walks all of it: %v", err)
		} else {
			rec.watch = w
		}
	}
	if rec.watch != nil {
		dirty, full, err := rec.watch.Dirty(ctx)
		if err == nil && !full && rec.prev != nil {
			t, err := scope.Rescan(ctx, root, rec.prev, dirty, opts)
			rec.prev = t
			return t, err
		}
	}
	t, err := scope.Walk(ctx, root, opts)
	rec.prev = t
	return t, err
}

// before walks the scope, storing every file it reads. A scope over the
// limits is refused (*errRefusedRecord), as is a store that is full.
// Links are hashed from their target, not read through Hash: the target
// of one the call changes is stored by after, from the walk itself, so a
// record costs nothing for the links it does not change.
//
// A named path that is a hard link (a regular file with other names) is
// changed under each of its names by a write through one: a record of the
// named paths alone would miss the others. Such a call records the whole
// workspace as well as its paths (c.sc becomes ScopeWorkspace, Paths
// kept), so every name inside the workspace is recorded as the file it is;
// a revert puts each back as a file of its own.
func (c *callCapture) before(ctx context.Context) error {
	t, err := c.walk(ctx)
	if err == nil && c.sc.Kind == ScopePaths && t.HardLinked {
		c.sc = CallScope{Kind: ScopeWorkspace, Paths: c.sc.Paths}
		t, err = c.walk(ctx)
	}
	if err != nil {
		return err
	}
	c.tree = t
	return nil
}

// after is the files the call changed: the scope walked again and
// compared with the walk before. The target of a link it changed is
// stored here (durable before it returns, so before the record line that
// names it), when the store does not hold it yet.
func (c *callCapture) after(ctx context.Context) ([]changes.FileChange, error) {
	// Over the limits after the call, the record is refused too.
	now, err := c.walk(ctx)
	if err != nil {
		return nil, err
	}
	c.afterTree = now
	b := c.objs.Batch()
	defer b.Abort()
	var out []changes.FileChange
	for _, ch := range scope.Diff(c.tree, now) {
		before, after := entryState(ch.Before, true), entryState(ch.After, false)
		if before == nil && after == nil {
			continue // a folder made or removed: its files say it
		}
		if before != nil && before.OID != "" && !c.stored(before.OID) {
			if ch.Before.Mode&fs.ModeSymlink != 0 {
				if _, err := b.PutBytes(ctx, []byte(ch.Before.Link)); err != nil {
					return nil, err
				}
			} else {
				// The cache took its hash from an earlier walk whose
				// object is gone since (a prune): named, but not
				// restorable.
				before = &fstate.State{Skipped: fstate.SkipMissing, Size: before.Size}
			}
		}
		out = append(out, changes.FileChange{Path: ch.Path, Before: before, After: after})
	}
	if err := b.Commit(); err != nil {
		return nil, err
	}
	return out, nil
}

// stored reports whether object oid is in the store.
func (c *callCapture) stored(oid string) bool {
	id, err := objects.ParseID(oid)
	if err != nil {
		return false
	}
	ok, err := c.objs.Has(id)
	return ok && err == nil
}

// entryState is the F of a walked entry: stored (before) or by its hash
// (after); nil for none or a folder.
func entryState(e *scope.Entry, stored bool) *fstate.State { return overlap.EntryState(e, stored) }
