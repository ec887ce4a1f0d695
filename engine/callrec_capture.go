package engine

import (
	"context"
	"io/fs"
	"path"
	"slices"
	"syscall"
	"time"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/fstate"
	"cairn/internal/vfs"
	"cairn/objects"
)

// Capturing what a recorded call may change, before and after it: the
// named paths (a named folder all of it, .gitignore or not) or the whole
// workspace (walked with each folder's .gitignore). Before the call every
// covered file's content is stored (an object; a named file's small
// content inline); after it, each file is read again only if its stat
// data changed, and compared by hash.

// callCapture is the capture of one call's scope.
type callCapture struct {
	s    *Session
	fsys vfs.FS
	sc   CallScope
	cfg  StorageConfig
	objs *objects.Store

	at     time.Time                // when the walk before began
	files  map[string]fs.FileInfo   // the files covered before, by name
	states map[string]*fstate.State // their content before (nil: absent)
	named  []string                 // named paths that did not exist before
}

func (c *callCapture) maxFile() int64 { return int64(c.cfg.MaxFileBytesMB) << 20 }

// before stores the content of every file the scope covers. A scope over
// the limits is refused (*errRefusedRecord), as is a store that is full.
func (c *callCapture) before(ctx context.Context) error {
	c.at = time.Now()
	files, err := c.list(ctx)
	if err != nil {
		return err
	}
	if len(files) > c.cfg.MaxFiles {
		return &errRefusedRecord{why: changes.WhyMaxFiles}
	}
	var total int64
	for _, fi := range files {
		if fi.Mode().IsRegular() && fi.Size() <= c.maxFile() {
			total += fi.Size()
		}
	}
	if total > int64(c.cfg.MaxBytesMB)<<20 {
		return &errRefusedRecord{why: changes.WhyMaxBytes}
	}
	put := fstate.StoreSink(ctx, c.objs)
	if c.sc.Kind == ScopePaths {
		put = fstate.InlineSink(ctx, c.objs)
	}
	c.files, c.states = files, map[string]*fstate.State{}
	for _, rel := range sortedKeys(files) {
		if err := ctx.Err(); err != nil {
			return err
		}
		st, err := fstate.Capture(ctx, c.fsys, put, rel, c.maxFile())
		switch {
		case st.IsSkipped() && st.Skipped == fstate.SkipStore:
			return err
		case st.IsSkipped() && st.Skipped == fstate.SkipTooLarge:
			st = &fstate.State{Skipped: changes.SkipMaxFile, Size: st.Size}
		}
		c.states[rel] = st
	}
	return nil
}

// after is the files the call changed: each covered before or after,
// compared with its content before. A file whose stat data is as before,
// and not changed within the clock's resolution of the walk, is taken as
// unchanged without reading it.
func (c *callCapture) after(ctx context.Context) ([]changes.FileChange, error) {
	now, err := c.list(ctx)
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for rel := range c.states {
		names[rel] = true
	}
	for rel := range now {
		names[rel] = true
	}
	for _, rel := range c.named {
		names[rel] = true
	}
	var out []changes.FileChange
	for _, rel := range sortedKeys(names) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		before, was := c.states[rel]
		fi, is := now[rel]
		if !was && !is {
			continue
		}
		if was && is && sameStat(c.files[rel], fi) && fi.ModTime().Before(c.at.Add(-racyWindow)) {
			continue
		}
		var after *fstate.State
		if is {
			after, _ = fstate.Capture(ctx, c.fsys, fstate.HashSink, rel, c.maxFile())
			if after.IsSkipped() && after.Skipped == fstate.SkipTooLarge {
				after = &fstate.State{Skipped: changes.SkipMaxFile, Size: after.Size}
			}
		}
		switch {
		case before == nil && after == nil:
			continue
		case fstate.Same(before, after):
			continue
		case before.IsSkipped() && after.IsSkipped() && sameStat(c.files[rel], fi):
			continue
		}
		out = append(out, changes.FileChange{Path: rel, Before: before, After: after})
	}
	return out, nil
}

// racyWindow is how close to the walk a file's mtime may be and still be
// trusted: a file changed within it is read again (git's racy-clean rule).
const racyWindow = 2 * time.Second

// sameStat reports whether two stats of a file agree on what a change
// moves: size, mode, mtime (and inode where the system has one).
func sameStat(a, b fs.FileInfo) bool {
	if a == nil || b == nil {
		return false
	}
	if a.Size() != b.Size() || a.Mode() != b.Mode() || !a.ModTime().Equal(b.ModTime()) {
		return false
	}
	sa, ok1 := a.Sys().(*syscall.Stat_t)
	sb, ok2 := b.Sys().(*syscall.Stat_t)
	return !ok1 || !ok2 || (sa.Ino == sb.Ino && sa.Dev == sb.Dev)
}

// list is the files the scope covers now, by workspace-relative name.
func (c *callCapture) list(ctx context.Context) (map[string]fs.FileInfo, error) {
	out := map[string]fs.FileInfo{}
	if c.sc.Kind == ScopeWorkspace {
		return out, walkFiles(ctx, c.fsys, ".", true, out)
	}
	c.named = c.named[:0]
	for _, rel := range c.sc.Paths {
		if leftOutTop(rel) {
			continue
		}
		fi, err := c.fsys.Lstat(rel)
		switch {
		case vfs.IsNotExist(err):
			c.named = append(c.named, rel)
		case err != nil:
			return nil, err
		case fi.IsDir():
			if err := walkFiles(ctx, c.fsys, rel, false, out); err != nil {
				return nil, err
			}
		case recordable(fi):
			out[rel] = fi
		}
	}
	return out, nil
}

// leftOutTop reports whether rel is, or lies in, a name records never
// hold at the top of the workspace (seed "Limits").
func leftOutTop(rel string) bool {
	top, _, _ := cutFirst(rel)
	switch top {
	case ".git", ".ssh", ".workcell", ".env", ".npmrc", ".pypirc", ".netrc":
		return true
	}
	return false
}

func cutFirst(rel string) (string, string, bool) {
	for i := 0; i < len(rel); i++ {
		if rel[i] == '/' {
			return rel[:i], rel[i+1:], true
		}
	}
	return rel, "", false
}

// recordable reports whether a record may hold fi: a regular file or a
// symbolic link (stored as a link, never followed).
func recordable(fi fs.FileInfo) bool {
	return fi.Mode().IsRegular() || fi.Mode()&fs.ModeSymlink != 0
}

// walkFiles adds the recordable files under dir to out, leaving out
// nested repositories and special files (and, from the top, the names
// records never hold).
func walkFiles(ctx context.Context, fsys vfs.FS, dir string, ignore bool, out map[string]fs.FileInfo) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ents, err := fsys.ReadDir(dir)
	if err != nil {
		if vfs.IsNotExist(err) {
			return nil
		}
		return err
	}
	if dir != "." {
		for _, e := range ents {
			if e.Name() == ".git" {
				return nil // a nested repository
			}
		}
	}
	for _, e := range ents {
		rel := path.Join(dir, e.Name())
		if leftOutTop(rel) {
			continue
		}
		if e.IsDir() {
			if err := walkFiles(ctx, fsys, rel, ignore, out); err != nil {
				return err
			}
			continue
		}
		fi, err := e.Info()
		if err != nil {
			if vfs.IsNotExist(err) {
				continue
			}
			return err
		}
		if recordable(fi) {
			out[rel] = fi
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
