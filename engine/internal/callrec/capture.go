package callrec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"time"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/fstate"
	"cairn/engine/internal/overlap"
	"cairn/engine/internal/scope"
	"cairn/internal/vfs"
	"cairn/objects"
)

// Capturing what a recorded call may change, before and after it, with
// package scope's walks: the named paths (a named folder all of it,
// .gitignore or not: scope.WalkPaths) or the whole workspace (scope.Walk,
// each folder's .gitignore applied, the left-out kinds left out). Before
// the call every covered file's content is stored as an object in the same
// read that hashes it; after it, the same scope is walked again and
// scope.Diff keeps what changed. The session's stat cache makes a walk
// read only the files whose stat data changed, and with a watcher a walk
// rescans only the paths marked dirty since the last one.
//
// Every walk stores what it reads, the one after a call too, so the stat
// cache only ever holds content that is stored: a later record whose
// "before" comes from the cache names an object that exists. A link is
// not read (its target is in the walk): the record stores the target
// before of a link the call changed, when the store lacks it.

// Scope kinds, as a call line's "scope".
const (
	None      = "none"      // a line that only reads: nothing is recorded
	Paths     = "paths"     // the named paths (a folder: all of it)
	Workspace = "workspace" // the whole workspace, walked
)

// Scope is what a call may change: Kind (None, Paths or Workspace) and,
// for Paths, the workspace-relative paths.
type Scope struct {
	Kind  string
	Paths []string
}

// State is a session's state for recording calls, guarded by the undo
// stack's lock (the engine's snapStack.mu).
type State struct {
	Cache  *scope.Cache
	Walked bool // the cache learned since it was loaded
	// Since is when Cache was loaded: a cache (and Prev) held longer than
	// Capture.Trust is loaded again from the file, and Prev dropped.
	Since time.Time
	// Watcher marks the workspace's dirty paths while the session runs
	// with a watch, from its first whole-workspace record; Prev is the
	// walk after the last call, which the next one rescans from.
	Watcher   *scope.Watcher
	WatchFail bool // the watcher could not start: full walks from now on
	Prev      *scope.Tree
	// Told is the reasons of calls run without a record already shown.
	Told map[string]bool
	// Others is what the store budget's trims read of other sessions'
	// journals (budget.go).
	Others map[string]Others
}

// TellOnce reports whether reason why is to be shown now: the first time
// in the session.
func (st *State) TellOnce(why string) bool {
	if st.Told == nil {
		st.Told = map[string]bool{}
	}
	seen := st.Told[why]
	st.Told[why] = true
	return !seen
}

// Close stops the watcher and saves the stat cache to cache file name of
// fsys when its walks changed it (best effort: the cache is derived).
func (st *State) Close(fsys vfs.FS, name string) {
	if st.Watcher != nil {
		st.Watcher.Close()
		st.Watcher, st.Prev = nil, nil
	}
	if st.Cache != nil && st.Walked && st.Cache.Changed() {
		st.Cache.Save(fsys, name)
		st.Walked = false
	}
}

// Limits are the store's limits on one record.
type Limits struct {
	MaxFiles     int
	MaxBytes     int64
	MaxFileBytes int64
}

// Capture is the capture of one call's scope.
type Capture struct {
	State     *State
	FS        vfs.FS // the state folder's, for the stat cache file
	CacheName string // the stat cache file
	// Trust is how long a session trusts the stat cache (and the last
	// walk) it holds in memory before it loads the file again.
	Trust    time.Duration
	Now      time.Time
	Root     string // the workspace
	StateDir string // the state folder, left out of every walk
	Watch    bool   // a whole-workspace walk starts a watcher
	Notice   func(format string, a ...any)
	Objs     *objects.Store
	Limits   Limits
	Scope    Scope
	// Read is what the walks read the workspace through (scope.Options.Read);
	// nil: the system's calls.
	Read scope.Reader
	// Tree is the walk before the call; AfterTree the walk after it, once
	// After made it.
	Tree, AfterTree *scope.Tree
}

// options are the walks' options: the limits, the state folder left out,
// the session's cache, and every file read stored in batch b, made durable
// together at the end of the walk (before the cache learns the hashes, and
// before the line that names them is written): one sync of all their data
// and one per shard folder, not two per file.
func (c *Capture) options(ctx context.Context, b *objects.Batch) scope.Options {
	rec := c.State
	if rec.Cache != nil && c.Now.Sub(rec.Since) >= c.Trust {
		// Held long enough for a prune to have removed objects only this
		// session's memory names (prune keeps those of the file): start
		// again from the file, and walk the whole scope once more.
		rec.Cache, rec.Prev, rec.Walked = nil, nil, false
	}
	if rec.Cache == nil {
		rec.Cache = scope.LoadCache(c.FS, c.CacheName)
		rec.Since = c.Now
	}
	rec.Walked = true
	return scope.Options{
		StateDir:     c.StateDir,
		MaxFiles:     c.Limits.MaxFiles,
		MaxBytes:     c.Limits.MaxBytes,
		MaxFileBytes: c.Limits.MaxFileBytes,
		Cache:        rec.Cache,
		Hash: func(_ string, r io.Reader) (objects.ID, error) {
			info, err := b.Put(ctx, r)
			return info.ID, err
		},
		Flush: b.Commit,
		Read:  c.Read,
	}
}

// Walk walks the call's scope: the named paths, or the whole workspace
// (rescanning the dirty paths from the last walk when a watcher covers
// it), and with it the named paths when it has any (a named hard link:
// Before). A walk over the limits is refused (*Refused).
func (c *Capture) Walk(ctx context.Context) (*scope.Tree, error) {
	if c.Scope.Kind == Paths {
		return c.walkOne(ctx, true)
	}
	t, err := c.walkOne(ctx, false)
	if err != nil || len(c.Scope.Paths) == 0 {
		return t, err
	}
	named, err := c.walkOne(ctx, true)
	if err != nil {
		return nil, err
	}
	return scope.Union(t, named), nil
}

// walkOne is one walk of Walk, of the named paths or of the workspace, its
// files stored in a batch of its own.
func (c *Capture) walkOne(ctx context.Context, named bool) (*scope.Tree, error) {
	b := c.Objs.Batch()
	defer b.Abort() // a walk that failed: the temp files still held go
	opts := c.options(ctx, b)
	var t *scope.Tree
	var err error
	if named {
		t, err = scope.WalkPaths(ctx, c.Root, c.Scope.Paths, opts)
	} else {
		t, err = c.walkWorkspace(ctx, opts)
	}
	var le *scope.LimitError
	if errors.As(err, &le) {
		return nil, &Refused{Why: le.Limit}
	}
	return t, err
}

// walkWorkspace is a full walk, or a rescan of the dirty paths since the
// last walk when the session's watcher covers the tree.
func (c *Capture) walkWorkspace(ctx context.Context, opts scope.Options) (*scope.Tree, error) {
	rec := c.State
	if c.Watch && rec.Watcher == nil && !rec.WatchFail {
		w, err := scope.Watch(context.WithoutCancel(ctx), c.Root, opts)
		if err != nil {
			rec.WatchFail = true
			c.Notice("the workspace cannot be watched, so each record walks all of it: %v", err)
		} else {
			rec.Watcher = w
		}
	}
	if rec.Watcher != nil {
		dirty, full, err := rec.Watcher.Dirty(ctx)
		if err == nil && !full && rec.Prev != nil {
			t, err := scope.Rescan(ctx, c.Root, rec.Prev, dirty, opts)
			rec.Prev = t
			return t, err
		}
	}
	t, err := scope.Walk(ctx, c.Root, opts)
	rec.Prev = t
	return t, err
}

// Before walks the scope, storing every file it reads. A scope over the
// limits is refused (*Refused), as is a store that is full. Links are
// hashed from their target, not read through Hash: the target of one the
// call changes is stored by After, from the walk itself, so a record costs
// nothing for the links it does not change.
//
// A named path that is a hard link (a regular file with other names) is
// changed under each of its names by a write through one: a record of the
// named paths alone would miss the others. Such a call records the whole
// workspace as well as its paths (Scope becomes Workspace, Paths kept), so
// every name inside the workspace is recorded as the file it is; a revert
// puts each back as a file of its own.
func (c *Capture) Before(ctx context.Context) error {
	t, err := c.Walk(ctx)
	if err == nil && c.Scope.Kind == Paths && t.HardLinked {
		c.Scope.Kind = Workspace
		t, err = c.Walk(ctx)
	}
	if err != nil {
		return err
	}
	c.Tree = t
	return nil
}

// After is the files the call changed: the scope walked again and
// compared with the walk before. The target of a link it changed is
// stored here (durable before it returns, so before the record line that
// names it), when the store does not hold it yet.
func (c *Capture) After(ctx context.Context) ([]changes.FileChange, error) {
	// Over the limits after the call, the record is refused too.
	now, err := c.Walk(ctx)
	if err != nil {
		return nil, err
	}
	c.AfterTree = now
	if p, ok := unreadChanged(c.Tree, now); ok {
		// One walk read the folder and the other could not: what the
		// call did in it is unknown, so no record can say it.
		return nil, &UnreadError{Path: p}
	}
	b := c.Objs.Batch()
	defer b.Abort()
	var out []changes.FileChange
	for _, ch := range scope.Diff(c.Tree, now) {
		before, after := overlap.EntryState(ch.Before, true), overlap.EntryState(ch.After, false)
		if before == nil && after == nil {
			continue // a folder made or removed: its files say it
		}
		if before != nil && before.OID != "" && !Stored(c.Objs, before.OID) {
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

// UnreadError says a folder could be read by only one of a call's walks
// (before and after it), so what the call changed in it is unknown.
type UnreadError struct {
	Path string // workspace-relative; "" the workspace itself
}

func (e *UnreadError) Error() string {
	p := e.Path
	if p == "" {
		p = "."
	}
	return fmt.Sprintf("callrec: the folder %q could not be read before or after the call, so what it changed there is unknown", p)
}

// unreadChanged is a folder one of the walks before and after could not
// read and the other could (scope.Tree.Unread), if any.
func unreadChanged(before, after *scope.Tree) (string, bool) {
	for _, p := range before.Unread {
		if !slices.Contains(after.Unread, p) {
			return p, true
		}
	}
	for _, p := range after.Unread {
		if !slices.Contains(before.Unread, p) {
			return p, true
		}
	}
	return "", false
}

// Stored reports whether object oid is in objs.
func Stored(objs *objects.Store, oid string) bool {
	id, err := objects.ParseID(oid)
	if err != nil {
		return false
	}
	ok, err := objs.Has(id)
	return ok && err == nil
}

// Net stores what the net changes of an overlap unit need (overlap.Net):
// the before of a link no object holds yet is stored; a before whose
// object is gone (a prune) is named, but not restorable.
func Net(ctx context.Context, objs *objects.Store, net []overlap.Change) ([]changes.FileChange, error) {
	b := objs.Batch()
	defer b.Abort()
	files := make([]changes.FileChange, len(net))
	for i, ch := range net {
		f := ch.FileChange
		if f.Before != nil && f.Before.OID != "" && !Stored(objs, f.Before.OID) {
			if ch.Link != "" {
				if _, err := b.PutBytes(ctx, []byte(ch.Link)); err != nil {
					return nil, err
				}
			} else {
				f.Before = &fstate.State{Skipped: fstate.SkipMissing, Size: f.Before.Size}
			}
		}
		files[i] = f
	}
	if err := b.Commit(); err != nil {
		return nil, err
	}
	return files, nil
}
