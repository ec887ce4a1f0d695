package scope

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkRecordWatched is B2's "record with the watcher" row
// (cmd/cairn-bench) in process: on a generated tree, with the stat cache
// and the watcher warm, one operation is what a user waits for around a
// shell line that changes one file: Dirty and Rescan before the call,
// then Dirty, Rescan and Diff after it (the change itself is not timed).
// Its cost must not grow with the tree: files=10000 and files=50000 should
// come out about equal, in time and in allocations.
func BenchmarkRecordWatched(b *testing.B) {
	for _, n := range []int{10000, 50000} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			ctx := context.Background()
			root := b.TempDir()
			writeBenchTree(b, root, n)
			const change = "pkg00/mod00/file00.go"
			w, err := Watch(ctx, root, Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close()
			if _, _, err := w.Dirty(ctx); err != nil { // the first: full
				b.Fatal(err)
			}
			cache := NewCache()
			tree, err := Walk(ctx, root, Options{Cache: cache})
			if err != nil {
				b.Fatal(err)
			}
			rescan := func() *Tree {
				dirty, full, err := w.Dirty(ctx)
				if err != nil || full {
					b.Fatalf("Dirty: %v, full %v (%v)", err, full, w.Broken())
				}
				t, err := Rescan(ctx, root, tree, dirty, Options{Cache: cache})
				if err != nil {
					b.Fatal(err)
				}
				return t
			}
			round := 0
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				before := rescan()
				tree = before
				b.StopTimer()
				round++
				if err := os.WriteFile(filepath.Join(root, change), fmt.Appendf(nil, "package x // round %d\n", round), 0o644); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				after := rescan()
				if d := Diff(before, after); len(d) != 1 || d[0].Path != change {
					b.Fatalf("the record found %d changes, want 1 (%s)", len(d), change)
				}
				tree = after
			}
		})
	}
}

// writeBenchTree writes n small files in the shape of B2's generated tree:
// 20 files a folder, 25 folders a package.
func writeBenchTree(b *testing.B, root string, n int) {
	b.Helper()
	for i := range n {
		dir := filepath.Join(root, fmt.Sprintf("pkg%02d", i/500), fmt.Sprintf("mod%02d", i/20%25))
		if i%20 == 0 {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%02d.go", i%20)), fmt.Appendf(nil, "package x // %d\n", i), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}
