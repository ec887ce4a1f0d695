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
// shell line: Dirty and Rescan before the call, then Dirty, Rescan and
// Diff after it. Its cost must not grow with the tree: files=10000 and
// files=50000 should come out about equal, in time and in allocations.
//
// change=write1 rewrites one file (B2's line; the write is not timed);
// change=rm100 removes 100 files of one folder, timed with the record as
// the watcher takes their events meanwhile (they are made again, untimed,
// after each operation).
func BenchmarkRecordWatched(b *testing.B) {
	for _, n := range []int{10000, 50000} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			root := b.TempDir()
			writeBenchTree(b, root, n)
			for _, change := range []string{"write1", "rm100"} {
				b.Run("change="+change, func(b *testing.B) { benchRecordWatched(b, root, change) })
			}
		})
	}
}

func benchRecordWatched(b *testing.B, root, change string) {
	ctx := context.Background()
	const one = "pkg00/mod00/file00.go"
	many := func(do func(string) error) {
		for i := range 100 {
			if err := do(filepath.Join(root, "pkg01", "many", fmt.Sprintf("m%03d", i))); err != nil {
				b.Fatal(err)
			}
		}
	}
	write := func(p string) error { return os.WriteFile(p, []byte(p), 0o644) }
	if err := os.MkdirAll(filepath.Join(root, "pkg01", "many"), 0o755); err != nil {
		b.Fatal(err)
	}
	many(write)
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
	for b.Loop() {
		before := rescan()
		tree = before
		want := 100
		if change == "write1" {
			b.StopTimer()
			round++
			if err := os.WriteFile(filepath.Join(root, one), fmt.Appendf(nil, "package x // round %d\n", round), 0o644); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			want = 1
		} else {
			many(os.Remove)
		}
		after := rescan()
		if d := Diff(before, after); len(d) != want {
			b.Fatalf("the record found %d changes, want %d", len(d), want)
		}
		tree = after
		if change == "rm100" {
			b.StopTimer()
			many(write)
			b.StartTimer()
		}
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
