package scope

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Rescan of exactly the changed paths (and some unchanged ones) equals a
// full walk, over random changes to a random tree: the merge keeps,
// drops and inserts in the right places.
func TestRescanRandom(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(30) {
		r := rand.New(rand.NewPCG(seed, 13))
		root := t.TempDir()
		names := []string{"a", "a-b", "a.c", "b", "b0", "c"}
		pick := func() string {
			n := 1 + r.IntN(3)
			p := ""
			for i := range n {
				if i > 0 {
					p += "/"
				}
				p += names[r.IntN(len(names))]
			}
			return p
		}
		create := func(p string) { writeRandom(r, root, p) }
		for range 40 {
			create(pick())
		}
		writeFile(t, root, ".gitignore", "b0\n")
		prev := mustWalk(t, root, Options{})
		for step := range 8 {
			var dirty []string
			for range 1 + r.IntN(4) {
				p := pick()
				switch r.IntN(3) {
				case 0:
					create(p)
				case 1:
					os.RemoveAll(filepath.Join(root, p))
				case 2:
					os.MkdirAll(filepath.Join(root, p), 0o755)
				}
				// The watcher reports the path, or for a new folder the
				// folders it made (their highest is enough).
				dirty = append(dirty, p)
			}
			if r.IntN(2) == 0 {
				dirty = append(dirty, pick()) // unchanged paths are harmless
			}
			got, err := Rescan(ctx, root, prev, dirty, Options{})
			if err != nil {
				t.Fatal(err)
			}
			want := mustWalk(t, root, Options{})
			sameTree(t, fmt.Sprintf("seed %d step %d dirty %v", seed, step, dirty), got, want)
			if fast, full := Diff(prev, got), Diff(prev, want); !sameChanges(fast, full) {
				t.Fatalf("seed %d step %d: Diff of the rescan %v, of the walk %v", seed, step, fast, full)
			}
			prev = got
		}
	}
}

// Tree.replace, the merge of a rescan, against the plain answer (drop
// what is at or under the paths, add the fresh entries, sort), over chained
// random replacements of trees of many chunks: the chunks it copies, the
// ones it shares and the ones it takes in stay in path order, none empty
// or over chunkSize, and the tree it started from is unchanged.
func TestTreeReplaceRandom(t *testing.T) {
	for seed := range uint64(8) {
		r := rand.New(rand.NewPCG(seed, 17))
		names := []string{"a", "a-b", "a.c", "a0", "b", "b.d", "c", "d", "e", "f"}
		pick := func() string {
			p := names[r.IntN(len(names))]
			for range r.IntN(4) {
				p += "/" + names[r.IntN(len(names))]
			}
			return p
		}
		set := map[string]bool{}
		for range 200 + r.IntN(2000) {
			set[pick()] = true
		}
		entries := func(set map[string]bool) []Entry {
			var out []Entry
			for p := range set {
				out = append(out, Entry{Path: p, Size: int64(len(p)), Ino: r.Uint64()})
			}
			slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.Path, b.Path) })
			return out
		}
		tr := newTree(entries(set), 0, 0)
		for step := range 30 {
			// Dirty paths, none under another, and fresh entries at or
			// under them.
			var top []string
			for range 1 + r.IntN(6) {
				d := pick()
				if step%7 == 6 {
					d = names[r.IntN(len(names))] // a whole top folder
				}
				if !under(d, top) && !slices.ContainsFunc(top, func(q string) bool { return strings.HasPrefix(q, d+"/") }) {
					top = append(top, d)
				}
			}
			slices.Sort(top)
			fresh := map[string]bool{}
			for _, d := range top {
				for range r.IntN(3 * chunkSize / 2) {
					p := d
					for range r.IntN(3) {
						p += "/" + names[r.IntN(len(names))]
					}
					fresh[p] = true
				}
			}
			drop := map[string]bool{}
			for _, d := range top {
				drop[d] = true
			}
			before := slices.Clone(tr.Entries())
			var want, wantGone []Entry
			for _, e := range before {
				if atOrUnder(e.Path, drop) {
					wantGone = append(wantGone, e)
				} else {
					want = append(want, e)
				}
			}
			freshEnts := entries(fresh)
			want = append(want, freshEnts...)
			slices.SortFunc(want, func(a, b Entry) int { return strings.Compare(a.Path, b.Path) })

			got, gone := tr.replace(top, freshEnts)
			what := fmt.Sprintf("seed %d step %d top %v", seed, step, top)
			if !slices.Equal(got.Entries(), want) || got.Len() != len(want) {
				t.Fatalf("%s: replace gives %d entries, want %d", what, got.Len(), len(want))
			}
			var gonePaths []Entry
			for _, e := range gone {
				gonePaths = append(gonePaths, *e)
			}
			if !slices.Equal(gonePaths, wantGone) {
				t.Fatalf("%s: gone %d entries, want %d", what, len(gone), len(wantGone))
			}
			if !slices.Equal(tr.Entries(), before) {
				t.Fatalf("%s: replace changed the tree it started from", what)
			}
			for i, c := range got.chunks {
				if len(c) == 0 || len(c) > chunkSize || i > 0 && got.chunks[i-1][len(got.chunks[i-1])-1].Path >= c[0].Path {
					t.Fatalf("%s: chunk %d of %d holds %d entries, or out of order", what, i, len(got.chunks), len(c))
				}
			}
			// Lookups and spans of the new tree, against its entries.
			for range 20 {
				p := pick()
				i, ok := slices.BinarySearchFunc(want, p, func(e Entry, p string) int { return strings.Compare(e.Path, p) })
				if e := got.Lookup(p); (e != nil) != ok || ok && *e != want[i] {
					t.Fatalf("%s: Lookup(%s) = %v, present %v", what, p, e, ok)
				}
				lo, _ := slices.BinarySearchFunc(want, p+"/", func(e Entry, p string) int { return strings.Compare(e.Path, p) })
				hi, _ := slices.BinarySearchFunc(want, p+"0", func(e Entry, p string) int { return strings.Compare(e.Path, p) })
				sub := want[lo:hi]
				if s := got.subtree(p); !slices.Equal(s, sub) {
					t.Fatalf("%s: subtree(%s) holds %d entries, want %d", what, p, len(s), len(sub))
				}
			}
			tr = got
		}
		if n := len(tr.chunks); n > 2*tr.Len()/chunkSize+2 {
			t.Fatalf("seed %d: %d entries in %d chunks: replacements shrank them", seed, tr.Len(), n)
		}
	}
}

// The watcher's dirty paths and Rescan give what a full walk gives, over
// random changes to a tree of several chunks (files written, removed,
// moved, made executable, links, folders made, removed and moved), the
// stat cache learning as in a session: a change the rescan missed, or a
// chunk merged wrong, makes the trees differ.
func TestWatcherRescanRandom(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(2) {
		r := rand.New(rand.NewPCG(seed, 29))
		root := t.TempDir()
		names := []string{"a", "a-b", "a.c", "b", "b0", "c"}
		pick := func(depth int) string {
			p := names[r.IntN(len(names))]
			for range r.IntN(depth) {
				p += "/" + names[r.IntN(len(names))]
			}
			return p
		}
		write := func(p string) { writeRandom(r, root, p) }
		for range 400 {
			write(pick(3) + fmt.Sprintf("/f%d", r.IntN(20)))
		}
		w, err := Watch(ctx, root, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, full := dirty(t, w); !full {
			t.Fatal("the first Dirty must ask for a full walk")
		}
		cache := NewCache()
		prev := mustWalk(t, root, Options{Cache: cache})
		if len(prev.chunks) < 2 {
			t.Fatalf("seed %d: %d entries in one chunk: the test needs several", seed, prev.Len())
		}
		for step := range 10 {
			var did []string
			for range 1 + r.IntN(5) {
				p := pick(3)
				full := filepath.Join(root, p)
				switch op := r.IntN(7); op {
				case 0, 1:
					write(p)
				case 2:
					os.RemoveAll(full)
				case 3:
					os.Rename(full, filepath.Join(root, pick(2)+fmt.Sprintf("-moved%d", step)))
				case 4:
					os.Chmod(full, 0o755)
				case 5:
					os.Symlink(pick(1), full)
				case 6:
					for i := range 1 + r.IntN(30) {
						write(fmt.Sprintf("%s/new%d/g%d", p, step, i))
					}
				}
				did = append(did, p)
			}
			d, full := dirty(t, w)
			if full {
				t.Fatalf("seed %d step %d: full walk asked for (%v)", seed, step, w.Broken())
			}
			got, err := Rescan(ctx, root, prev, d, Options{Cache: cache})
			if err != nil {
				t.Fatal(err)
			}
			want := mustWalk(t, root, Options{})
			what := fmt.Sprintf("seed %d step %d (changed %v, dirty %v)", seed, step, did, d)
			sameTree(t, what, got, want)
			if fast, full := Diff(prev, got), Diff(prev, want); !sameChanges(fast, full) {
				t.Fatalf("%s: Diff of the rescan %v, of the walk %v", what, fast, full)
			}
			prev = got
		}
		w.Close()
	}
}

// writeRandom writes a random number to file p under root, making its
// folders; it does nothing where a parent is a file or p is a folder.
func writeRandom(r *rand.Rand, root, p string) {
	full := filepath.Join(root, p)
	if os.MkdirAll(filepath.Dir(full), 0o755) != nil {
		return // a parent is a file
	}
	if fi, err := os.Lstat(full); err == nil && fi.IsDir() {
		return
	}
	os.WriteFile(full, fmt.Appendf(nil, "%d", r.Int()), 0o644)
}
