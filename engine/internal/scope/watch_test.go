package scope

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/fsnotify/fsnotify"
)

func dirty(t *testing.T, w *Watcher) ([]string, bool) {
	t.Helper()
	d, full, err := w.Dirty(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return d, full
}

func sameTree(t *testing.T, what string, got, want *Tree) {
	t.Helper()
	if !slices.Equal(got.Entries(), want.Entries()) || got.Files != want.Files || got.Bytes != want.Bytes {
		t.Fatalf("%s: rescan differs from a full walk\nrescan %v (%d files, %d bytes)\nwalk   %v (%d files, %d bytes)",
			what, paths(got), got.Files, got.Bytes, paths(want), want.Files, want.Bytes)
	}
}

// A rescan of only the dirty paths gives what a full walk gives: edits,
// creations (files, folders with content, links), deletions (files and
// folders), moves, mode changes, and changes in ignored folders.
func TestWatcherRescanEqualsWalk(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	writeFile(t, root, ".gitignore", "node_modules/\n*.log\n")
	writeFile(t, root, "a.txt", "a")
	writeFile(t, root, "src/b.go", "b")
	writeFile(t, root, "src/deep/c.go", "c")
	writeFile(t, root, "old/x", "x")
	writeFile(t, root, "old/sub/s", "s")
	writeFile(t, root, "gone/y", "y")
	writeFile(t, root, "node_modules/m/index.js", "m")
	w, err := Watch(ctx, root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, full := dirty(t, w); !full {
		t.Fatal("the first Dirty must ask for a full walk")
	}
	cache := NewCache()
	prev := mustWalk(t, root, Options{Cache: cache})

	steps := []struct {
		name   string
		change func()
	}{
		{"edit", func() { writeFile(t, root, "src/b.go", "b2") }},
		{"create a file", func() { writeFile(t, root, "src/new.go", "n") }},
		{"create folders with content", func() {
			writeFile(t, root, "fresh/one/two/f", "f")
			writeFile(t, root, "fresh/g", "g")
		}},
		{"write in a created folder", func() { writeFile(t, root, "fresh/one/two/h", "h") }},
		{"delete a file", func() { os.Remove(filepath.Join(root, "a.txt")) }},
		{"delete a folder", func() { os.RemoveAll(filepath.Join(root, "gone")) }},
		{"move a folder", func() { os.Rename(filepath.Join(root, "old"), filepath.Join(root, "src/moved")) }},
		{"write in a moved folder", func() {
			writeFile(t, root, "src/moved/z", "z")
			writeFile(t, root, "src/moved/sub/z", "z")
		}},
		{"chmod", func() { os.Chmod(filepath.Join(root, "src/deep/c.go"), 0o755) }},
		{"link", func() { os.Symlink("a.txt", filepath.Join(root, "ln")) }},
		{"ignored", func() {
			writeFile(t, root, "node_modules/m/other.js", "o")
			writeFile(t, root, "src/x.log", "l")
		}},
		{"fifo", func() { syscall.Mkfifo(filepath.Join(root, "src/fifo"), 0o600) }},
		{"nothing", func() {}},
	}
	for _, s := range steps {
		s.change()
		d, full := dirty(t, w)
		if full {
			t.Fatalf("%s: full walk asked for (%v)", s.name, w.Broken())
		}
		got, err := Rescan(ctx, root, prev, d, Options{Cache: cache})
		if err != nil {
			t.Fatal(err)
		}
		want := mustWalk(t, root, Options{})
		sameTree(t, s.name+" (dirty "+joinPaths(d)+")", got, want)
		// Diff of a rescan looks at the dirty paths only: the same answer.
		if fast, full := Diff(prev, got), Diff(prev, want); !sameChanges(fast, full) {
			t.Fatalf("%s: Diff of the rescan %v, of the full walk %v", s.name, fast, full)
		}
		prev = got
	}

	// A .gitignore change asks for a full walk.
	writeFile(t, root, ".gitignore", "*.log\n")
	if _, full := dirty(t, w); !full {
		t.Fatal("a .gitignore change must ask for a full walk")
	}
	prev = mustWalk(t, root, Options{})
	// node_modules is watched now that it is not ignored.
	writeFile(t, root, "node_modules/m/third.js", "t")
	d, full := dirty(t, w)
	if full {
		t.Fatal("full walk after resync")
	}
	got, err := Rescan(ctx, root, prev, d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sameTree(t, "folder no longer ignored", got, mustWalk(t, root, Options{}))
}

func sameChanges(a, b []Change) bool {
	return slices.EqualFunc(a, b, func(x, y Change) bool {
		return x.Path == y.Path && x.Op == y.Op && (x.After == nil) == (y.After == nil) && (x.Before == nil) == (y.Before == nil)
	})
}

func joinPaths(p []string) string {
	s := ""
	for i, x := range p {
		if i > 0 {
			s += " "
		}
		s += x
	}
	return s
}

// A watcher that cannot add a watch (the inotify watch limit) asks for a
// full walk at every Dirty.
func TestWatcherCannotCoverAsksFullWalk(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "a/b/c", "x")
	n := 0
	limit := func(string) error {
		n++
		if n > 2 {
			return syscall.ENOSPC
		}
		return nil
	}
	w, err := watch(context.Background(), root, Options{}, limit)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for range 2 {
		if _, full := dirty(t, w); !full {
			t.Fatal("a watcher over its watch limit must ask for a full walk")
		}
	}
	if !errors.Is(w.Broken(), syscall.ENOSPC) {
		t.Fatalf("Broken() = %v", w.Broken())
	}
}

// A lost event (the kernel queue overflowed) asks for a full walk, once.
func TestWatcherOverflowAsksFullWalk(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "a", "x")
	w, err := Watch(context.Background(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	dirty(t, w) // the first: full
	w.fw.Errors <- fsnotify.ErrEventOverflow
	if _, full := dirty(t, w); !full {
		t.Fatal("an overflow must ask for a full walk")
	}
	writeFile(t, root, "a", "y")
	if d, full := dirty(t, w); full || !slices.Equal(d, []string{"a"}) {
		t.Fatalf("after the full walk: %v full=%v, want [a]", d, full)
	}
}
