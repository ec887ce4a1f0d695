package scope

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
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
		create := func(p string) {
			full := filepath.Join(root, p)
			if os.MkdirAll(filepath.Dir(full), 0o755) != nil {
				return // a parent is a file
			}
			if fi, err := os.Lstat(full); err == nil && fi.IsDir() {
				return
			}
			os.WriteFile(full, fmt.Appendf(nil, "%d", r.Int()), 0o644)
		}
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
