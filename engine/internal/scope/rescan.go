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
// read. prev's entries are not changed; with no dirty path, prev itself is
// the answer. Diff of prev and the result compares the dirty paths only.
func Rescan(ctx context.Context, root string, prev *Tree, dirty []string, opts Options) (*Tree, error) {
	if len(dirty) == 0 {
		return prev, nil // nothing changed: the same tree
	}
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
	// ("a-b" sorts between "a" and "a/c": compare with every kept one.)
	var top []string
	for _, d := range ds {
		if !under(d, top) {
			top = append(top, d)
		}
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

	// Merge: prev without what is at or under a dirty path, and fresh,
	// copying prev's kept entries a run at a time.
	var gone [][2]int // ranges of prev.Entries, sorted, disjoint
	for _, d := range top {
		if i, ok := find(prev, d); ok {
			gone = append(gone, [2]int{i, i + 1})
		}
		lo := sort.Search(len(prev.Entries), func(i int) bool { return prev.Entries[i].Path >= d+"/" })
		hi := sort.Search(len(prev.Entries), func(i int) bool { return prev.Entries[i].Path >= d+"0" }) // '0' follows '/'
		if lo < hi {
			gone = append(gone, [2]int{lo, hi})
		}
	}
	slices.SortFunc(gone, func(a, b [2]int) int { return a[0] - b[0] })
	goneFiles, goneBytes := 0, int64(0)
	for _, g := range gone {
		for i := g[0]; i < g[1]; i++ {
			if e := &prev.Entries[i]; !e.IsDir() {
				goneFiles++
				if e.Skipped != "max_file_bytes" {
					goneBytes += e.Size
				}
			}
		}
	}
	out := &Tree{Entries: make([]Entry, 0, len(prev.Entries)+len(fresh.Entries)-len(gone)),
		Files: prev.Files - goneFiles + fresh.Files, Bytes: prev.Bytes - goneBytes + fresh.Bytes}
	next, g := 0, 0 // next entry of prev to copy; first gone range not passed
	keep := func(to int) {
		for next < to {
			for g < len(gone) && gone[g][1] <= next {
				g++
			}
			end := to
			if g < len(gone) && gone[g][0] < end {
				end = gone[g][0]
			}
			if end > next {
				out.Entries = append(out.Entries, prev.Entries[next:end]...)
				next = end
			}
			if g < len(gone) && next >= gone[g][0] {
				next = max(next, min(gone[g][1], to))
			}
		}
	}
	for _, f := range fresh.Entries {
		keep(sort.Search(len(prev.Entries), func(i int) bool { return prev.Entries[i].Path >= f.Path }))
		out.Entries = append(out.Entries, f)
	}
	keep(len(prev.Entries))
	// out remembers prev for Diff; prev forgets its own base, so trees
	// never hold a chain of older ones (Diff of prev and its base is then
	// a full one, as right).
	prev.base, prev.changed = nil, nil
	out.base, out.changed = prev, top
	switch {
	case opts.MaxFiles > 0 && out.Files > opts.MaxFiles:
		return nil, &LimitError{Limit: "max_files", Path: "."}
	case opts.MaxBytes > 0 && out.Bytes > opts.MaxBytes:
		return nil, &LimitError{Limit: "max_bytes", Path: "."}
	}
	if opts.Cache != nil {
		opts.Cache.learn(w.gen, w.stamp, w.read, -1, func(yield func(string) bool) {
			for _, g := range gone {
				for i := g[0]; i < g[1]; i++ {
					if !yield(prev.Entries[i].Path) {
						return
					}
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
