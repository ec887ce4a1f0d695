package scope

import (
	"iter"
	"slices"
	"sort"
	"strings"
)

// Tree is the result of a walk: every covered entry, folders included,
// sorted by Path (byte order), the root itself left out.
//
// Its entries are held in chunks of at most chunkSize, in path order, that
// no one changes once the tree is made: a Rescan makes its tree from the
// one before by copying only the chunks its changed paths fall in (and
// the list of chunks), sharing every other with it, so a record with the
// watcher costs what changed, not the size of the tree (about 130 bytes
// an entry: a flat copy of the 50,000-file tree of cmd/cairn-bench's B2
// cost some 7 MB a rescan and most of its time).
type Tree struct {
	chunks [][]Entry // in path order, none empty
	n      int       // entries
	// flat, when set, is every entry in one slice the chunks are parts
	// of (a walk's): Entries gives it without a copy.
	flat []Entry
	// Files and Bytes count the regular files and links, and their sizes.
	Files int
	Bytes int64
	// HardLinked (a walk's tree only): a regular file it covers has
	// other names (a link count over one), which a write through one
	// name changes too, wherever they are.
	HardLinked bool
	// Unread is the folders (sorted) the walk listed but could not read
	// (no permission, or gone or replaced once opened): what they hold is
	// unknown, so Diff says nothing of it.
	Unread []string
	// base and changed, set by Rescan: the tree is base but at and under
	// the changed paths, so Diff(base, t) looks there only.
	base    *Tree
	changed []string
}

// chunkSize bounds the entries of a chunk: a rescan copies at least one
// (32 KiB) and the list of them (24 bytes a chunk).
const chunkSize = 256

// NewTree is the tree of entries, sorted by path, which the caller gives
// up; Files and Bytes are counted from them (a tree kept on disk, a test's).
func NewTree(entries []Entry) *Tree {
	var files int
	var size int64
	for i := range entries {
		if e := &entries[i]; !e.IsDir() {
			files++
			if e.Skipped != "max_file_bytes" {
				size += e.Size
			}
		}
	}
	return newTree(entries, files, size)
}

// newTree is the tree of entries (sorted by path), whose chunks are parts
// of entries itself: the caller gives it up.
func newTree(entries []Entry, files int, bytes int64) *Tree {
	t := &Tree{n: len(entries), flat: entries, Files: files, Bytes: bytes}
	t.chunks = appendChunks(nil, entries)
	return t
}

// Union is the tree of the entries of a and b, a's where both hold a path:
// what a record covering both scopes covers.
func Union(a, b *Tree) *Tree {
	x, y := a.Entries(), b.Entries()
	out := make([]Entry, 0, len(x)+len(y))
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case j == len(y) || i < len(x) && x[i].Path < y[j].Path:
			out = append(out, x[i])
			i++
		case i == len(x) || y[j].Path < x[i].Path:
			out = append(out, y[j])
			j++
		default:
			out = append(out, x[i])
			i, j = i+1, j+1
		}
	}
	t := NewTree(out)
	t.HardLinked = a.HardLinked || b.HardLinked
	t.Unread = slices.Compact(slices.Sorted(slices.Values(append(slices.Clip(a.Unread), b.Unread...))))
	return t
}

// appendChunks appends ents to chunks as chunks of about the same size,
// at most chunkSize, parts of ents (capped: nothing appends to a chunk).
func appendChunks(chunks [][]Entry, ents []Entry) [][]Entry {
	if len(ents) == 0 {
		return chunks
	}
	k := (len(ents) + chunkSize - 1) / chunkSize
	for i := range k {
		lo, hi := i*len(ents)/k, (i+1)*len(ents)/k
		chunks = append(chunks, ents[lo:hi:hi])
	}
	return chunks
}

// Len is the number of entries.
func (t *Tree) Len() int { return t.n }

// Entries is every entry in path order. For a walk's tree it is the
// tree's own slice, for a rescan's a copy: a caller must not change it.
// It costs the size of the tree; All and Lookup do not copy.
func (t *Tree) Entries() []Entry {
	if t.flat != nil || t.n == 0 {
		return t.flat
	}
	out := make([]Entry, 0, t.n)
	for _, c := range t.chunks {
		out = append(out, c...)
	}
	return out
}

// All yields every entry in path order (pointers into the tree: not to
// be changed).
func (t *Tree) All() iter.Seq[*Entry] {
	return func(yield func(*Entry) bool) {
		for _, c := range t.chunks {
			for i := range c {
				if !yield(&c[i]) {
					return
				}
			}
		}
	}
}

// Lookup is the entry of path p, or nil.
func (t *Tree) Lookup(p string) *Entry {
	if e := one(t, p); e != nil {
		return &e[0]
	}
	return nil
}

// chunkOf is the chunk path p falls in: the last whose first entry is not
// after p (the first chunk for a p before every entry). Each path falls in
// exactly one chunk of a tree that has any.
func (t *Tree) chunkOf(p string) int {
	c := sort.Search(len(t.chunks), func(i int) bool { return t.chunks[i][0].Path > p })
	return max(c-1, 0)
}

// search is where path p is or would go: chunk c, index i in it (i may be
// the chunk's length: after its last entry).
func (t *Tree) search(p string) (c, i int) {
	if len(t.chunks) == 0 {
		return 0, 0
	}
	c = t.chunkOf(p)
	ch := t.chunks[c]
	return c, sort.Search(len(ch), func(i int) bool { return ch[i].Path >= p })
}

// span is the entries from path lo (included) to path hi (excluded), in
// order: a part of a chunk when they are all in one, else a copy.
func (t *Tree) span(lo, hi string) []Entry {
	c, i := t.search(lo)
	var out []Entry
	for ; c < len(t.chunks); c, i = c+1, 0 {
		ch := t.chunks[c]
		j := i + sort.Search(len(ch)-i, func(k int) bool { return ch[i+k].Path >= hi })
		end := j < len(ch) || c+1 == len(t.chunks) || t.chunks[c+1][0].Path >= hi
		if out == nil && end {
			return ch[i:j:j] // all in this chunk
		}
		out = append(out, ch[i:j]...)
		if end {
			break
		}
	}
	return out
}

// subtree is the entries strictly under path p: every "p/..." sorts
// together, from "p/" up to "p0" ('0' is the byte after '/').
func (t *Tree) subtree(p string) []Entry { return t.span(p+"/", p+"0") }

// atOrUnder reports whether path p is one of paths (a set) or under one.
func atOrUnder(p string, paths map[string]bool) bool {
	if paths[p] {
		return true
	}
	for i := strings.IndexByte(p, '/'); i >= 0; i = next(p, i) {
		if paths[p[:i]] {
			return true
		}
	}
	return false
}

// next is the index of the first '/' of p after index i, or -1.
func next(p string, i int) int {
	if j := strings.IndexByte(p[i+1:], '/'); j >= 0 {
		return i + 1 + j
	}
	return -1
}
