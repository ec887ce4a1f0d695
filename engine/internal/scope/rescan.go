package scope

import (
	"context"
	"path"
	"slices"
	"sort"
	"strings"
)

// Rescan is the walk of root after changes under the dirty paths only
// (Watcher.Dirty), from prev, the walk before them: the same Tree a full
// Walk gives when every change since prev is under a dirty path. A dirty
// .gitignore, .git or the root itself makes it a full Walk (the rules
// themselves changed). With opts.Cache, the cache learns the paths it
// read. prev is not changed.
func Rescan(ctx context.Context, root string, prev *Tree, dirty []string, opts Options) (*Tree, error) {
	var ds []string
	for _, d := range dirty {
		d = path.Clean(d)
		base := path.Base(d)
		if d == "." || d == "" || base == ".gitignore" || base == ".git" || strings.Contains(d, "/.git/") || strings.HasPrefix(d, ".git/") {
			return Walk(ctx, root, opts)
		}
		if d == ".." || strings.HasPrefix(d, "../") || strings.HasPrefix(d, "/") {
			continue
		}
		// A path whose folder prev does not hold is rescanned from the
		// highest such folder: the walk never saw it.
		for p := path.Dir(d); p != "."; p = path.Dir(p) {
			if _, ok := find(prev, p); !ok {
				d = p
			}
		}
		ds = append(ds, d)
	}
	slices.Sort(ds)
	ds = slices.Compact(ds)
	// Keep the highest of nested dirty paths: rescanning it covers the rest.
	top := ds[:0]
	for _, d := range ds {
		if len(top) > 0 && strings.HasPrefix(d, top[len(top)-1]+"/") {
			continue
		}
		top = append(top, d)
	}

	w, err := newWalker(ctx, root, opts)
	if err != nil {
		return nil, err
	}
	for _, d := range top {
		w.one(d, false)
	}
	fresh, err := w.finish()
	if err != nil {
		return nil, err
	}

	// Merge: prev without what is at or under a dirty path, and fresh.
	gone := make([]bool, len(prev.Entries))
	for _, d := range top {
		if i, ok := find(prev, d); ok {
			gone[i] = true
		}
		lo := sort.Search(len(prev.Entries), func(i int) bool { return prev.Entries[i].Path >= d+"/" })
		for i := lo; i < len(prev.Entries) && strings.HasPrefix(prev.Entries[i].Path, d+"/"); i++ {
			gone[i] = true
		}
	}
	out := &Tree{Entries: make([]Entry, 0, len(prev.Entries)+len(fresh.Entries))}
	i, j := 0, 0
	for i < len(prev.Entries) || j < len(fresh.Entries) {
		if i < len(prev.Entries) && gone[i] {
			i++
			continue
		}
		var e *Entry
		if j == len(fresh.Entries) || i < len(prev.Entries) && prev.Entries[i].Path < fresh.Entries[j].Path {
			e = &prev.Entries[i]
			i++
		} else {
			e = &fresh.Entries[j]
			j++
		}
		out.Entries = append(out.Entries, *e)
		if !e.IsDir() {
			out.Files++
			if e.Skipped != "max_file_bytes" {
				out.Bytes += e.Size
			}
		}
	}
	switch {
	case opts.MaxFiles > 0 && out.Files > opts.MaxFiles:
		return nil, &LimitError{Limit: "max_files", Path: "."}
	case opts.MaxBytes > 0 && out.Bytes > opts.MaxBytes:
		return nil, &LimitError{Limit: "max_bytes", Path: "."}
	}
	if opts.Cache != nil {
		opts.Cache.learnPaths(fresh, w.start, func(yield func(string) bool) {
			for i, g := range gone {
				if g && !yield(prev.Entries[i].Path) {
					return
				}
			}
		})
	}
	return out, nil
}

// find is the index of path p in t.
func find(t *Tree, p string) (int, bool) {
	i := sort.Search(len(t.Entries), func(i int) bool { return t.Entries[i].Path >= p })
	return i, i < len(t.Entries) && t.Entries[i].Path == p
}
