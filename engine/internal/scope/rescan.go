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
		// A path whose folder prev does not hold (as a folder) is
		// rescanned from the highest such folder: the walk never saw it.
		for p := path.Dir(d); p != "."; p = path.Dir(p) {
			if e := prev.Lookup(p); e == nil || !e.IsDir() {
				d = p
			}
		}
		ds = append(ds, d)
	}
	slices.Sort(ds)
	ds = slices.Compact(ds)
	// Keep the highest of nested dirty paths: rescanning it covers the rest.
	// ("a-b" sorts between "a" and "a/c": look up each folder above a path
	// among the kept ones, not only the last kept.)
	var top []string
	kept := make(map[string]bool, len(ds))
	for _, d := range ds {
		if !atOrUnder(d, kept) {
			top = append(top, d)
			kept[d] = true
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

	out, gone := prev.replace(top, fresh.Entries())
	goneFiles, goneBytes := 0, int64(0)
	for _, e := range gone {
		if !e.IsDir() {
			goneFiles++
			if e.Skipped != "max_file_bytes" {
				goneBytes += e.Size
			}
		}
	}
	out.Files, out.Bytes = prev.Files-goneFiles+fresh.Files, prev.Bytes-goneBytes+fresh.Bytes
	// out remembers prev for Diff; prev forgets its own base, so trees
	// never hold a chain of older ones (Diff of prev and its base is then
	// a full one, as right).
	prev.base, prev.changed = nil, nil
	out.base, out.changed = prev, top
	// The folders unread: prev's outside what was rescanned, and the
	// rescan's own.
	for _, u := range prev.Unread {
		if !atOrUnder(u, kept) {
			out.Unread = append(out.Unread, u)
		}
	}
	out.Unread = append(out.Unread, fresh.Unread...)
	slices.Sort(out.Unread)
	out.Unread = slices.Compact(out.Unread) // a kept folder may be unread in both
	switch {
	case opts.MaxFiles > 0 && out.Files > opts.MaxFiles:
		return nil, &LimitError{Limit: "max_files", Path: "."}
	case opts.MaxBytes > 0 && out.Bytes > opts.MaxBytes:
		return nil, &LimitError{Limit: "max_bytes", Path: "."}
	}
	if opts.Cache != nil {
		opts.Cache.learn(w.gen, w.stamp, w.read, -1, func(yield func(string) bool) {
			for _, e := range gone {
				if !yield(e.Path) {
					return
				}
			}
		})
	}
	return out, nil
}

// replace is t with every entry at or under one of the paths top (sorted,
// none under another) dropped, and fresh (sorted by path, each at or under
// one of top) put in; gone is the entries dropped (t's own). Only the
// chunks of t those paths fall in are copied (and the list of chunks):
// the others are shared with t, which is not changed.
func (t *Tree) replace(top []string, fresh []Entry) (out *Tree, gone []*Entry) {
	if len(t.chunks) == 0 {
		return newTree(slices.Clone(fresh), 0, 0), nil
	}
	// The chunks touched: where each path of top is and what is under it
	// would be, and where each fresh entry goes.
	nfresh := len(fresh)
	var touched []int
	for _, d := range top {
		touched = append(touched, t.chunkOf(d))
		for c := t.chunkOf(d + "/"); c <= t.chunkOf(d+"0"); c++ { // '0' follows '/'
			touched = append(touched, c)
		}
	}
	for i := range fresh {
		if c := t.chunkOf(fresh[i].Path); len(touched) == 0 || touched[len(touched)-1] != c {
			touched = append(touched, c)
		}
	}
	slices.Sort(touched)
	touched = slices.Compact(touched)
	drop := make(map[string]bool, len(top))
	for _, d := range top {
		drop[d] = true
	}

	chunks := make([][]Entry, 0, len(t.chunks)+len(fresh)/chunkSize+2)
	copied := 0 // chunks of t up to here are in chunks (or replaced)
	for len(touched) > 0 {
		// A run of touched chunks, ci to cj, made again as one.
		ci, cj := touched[0], touched[0]
		for len(touched) > 1 && touched[1] == cj+1 {
			touched = touched[1:]
			cj++
		}
		touched = touched[1:]
		chunks = append(chunks, t.chunks[copied:ci]...)
		// The fresh entries of the run: those before the next chunk.
		nf := len(fresh)
		if cj+1 < len(t.chunks) {
			first := t.chunks[cj+1][0].Path
			nf = sort.Search(len(fresh), func(i int) bool { return fresh[i].Path >= first })
		}
		add := fresh[:nf]
		fresh = fresh[nf:]
		size := len(add)
		for c := ci; c <= cj; c++ {
			size += len(t.chunks[c])
		}
		ents := make([]Entry, 0, size)
		for c := ci; c <= cj; c++ {
			for i := range t.chunks[c] {
				e := &t.chunks[c][i]
				for len(add) > 0 && add[0].Path < e.Path {
					ents = append(ents, add[0])
					add = add[1:]
				}
				if atOrUnder(e.Path, drop) {
					gone = append(gone, e)
				} else {
					ents = append(ents, *e)
				}
			}
		}
		ents = append(ents, add...)
		// A short run takes in the chunk after it, so chunks do not
		// shrink to nothing over many rescans.
		if len(ents) < chunkSize/2 && cj+1 < len(t.chunks) && (len(touched) == 0 || touched[0] > cj+1) {
			cj++
			ents = append(ents, t.chunks[cj]...)
		}
		chunks = appendChunks(chunks, ents)
		copied = cj + 1
	}
	chunks = append(chunks, t.chunks[copied:]...)
	return &Tree{chunks: chunks, n: t.n - len(gone) + nfresh}, gone
}
