package scope

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"cairn/internal/vfs"
	"cairn/objects"
)

// faultTree is a workspace with every kind of entry a walk reads: files in
// folders, a link, a .gitignore and what it ignores.
func faultTree(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "a.txt", "a")
	writeFile(t, root, "src/b.go", "package b")
	writeFile(t, root, "src/deep/c.go", "package c")
	writeFile(t, root, ".gitignore", "*.log\n")
	writeFile(t, root, "build.log", "noise")
	writeFile(t, root, "src/.gitignore", "gen/\n")
	writeFile(t, root, "src/gen/x.go", "package gen")
	if err := os.Symlink("a.txt", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	return root
}

// walkers are the three walks recording uses, each over a Reader.
var walkers = []struct {
	name string
	walk func(ctx context.Context, root string, opts Options) (*Tree, error)
}{
	{"walk", Walk},
	{"paths", func(ctx context.Context, root string, opts Options) (*Tree, error) {
		return WalkPaths(ctx, root, []string{"src/deep/c.go", "src", "link"}, opts)
	}},
	{"rescan", func(ctx context.Context, root string, opts Options) (*Tree, error) {
		prev, err := Walk(ctx, root, Options{})
		if err != nil {
			return nil, err
		}
		return Rescan(ctx, root, prev, []string{"src/deep", "a.txt", "link", "src/gen/x.go"}, opts)
	}},
}

// The walks read only through Options.Read: a FaultyReader sees every
// call, and an I/O error at any one of them, in turn, fails the walk with
// that error. No fault is swallowed into a tree that lists less (or more,
// a .gitignore unread) than the workspace holds, which a record would
// then take for a change.
func TestWalkReadFaultsFailTheWalk(t *testing.T) {
	ctx := context.Background()
	root := faultTree(t)
	for _, wk := range walkers {
		clean, err := wk.walk(ctx, root, Options{})
		if err != nil {
			t.Fatal(err)
		}
		dry := NewFaultyReader(System{}, root)
		got, err := wk.walk(ctx, root, Options{Read: dry})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Entries(), clean.Entries()) {
			t.Fatalf("%s: the walk through a FaultyReader differs: %v, want %v", wk.name, paths(got), paths(clean))
		}
		calls := dry.Calls(vfs.OpAny)
		for _, op := range []vfs.Op{vfs.OpOpen, vfs.OpStat, vfs.OpReadDir, vfs.OpRead} {
			if dry.Calls(op) == 0 {
				t.Fatalf("%s: no %s call reached the FaultyReader", wk.name, op)
			}
		}
		for k := range calls {
			name := fmt.Sprintf("%s/call%d", wk.name, k)
			fr := NewFaultyReader(System{}, root)
			fr.Inject(vfs.Rule{Skip: k, Count: 1, Err: syscall.EIO})
			got, err := wk.walk(ctx, root, Options{Read: fr})
			if err == nil {
				if !slices.Equal(got.Entries(), clean.Entries()) {
					t.Errorf("%s: an I/O error gave a walk %v, want %v or an error", name, paths(got), paths(clean))
				}
				continue
			}
			if !errors.Is(err, syscall.EIO) {
				t.Errorf("%s: the walk failed with %v, want the I/O error", name, err)
			}
		}
	}
}

// A file the walk may not read (EACCES at its open) is listed unread, its
// reason said, and the walk goes on.
func TestWalkReadUnreadableFileIsSkipped(t *testing.T) {
	root := faultTree(t)
	fr := NewFaultyReader(System{}, root)
	fr.Inject(vfs.Rule{Op: vfs.OpOpen, Path: "src/b.go", Err: syscall.EACCES})
	tr := mustWalk(t, root, Options{Read: fr})
	if e := entry(t, tr, "src/b.go"); e.Skipped != "unreadable" || e.Hash != (objects.ID{}) {
		t.Fatalf("src/b.go unreadable: %+v", e)
	}
	if e := entry(t, tr, "src/deep/c.go"); e.Skipped != "" || e.Hash == (objects.ID{}) {
		t.Fatalf("the walk did not go on: %+v", e)
	}
}

// A folder the walk may not open (or finds gone once opened) is listed,
// named in Tree.Unread, and Diff says nothing of what it holds against a
// walk that could read it: unknown, not made or removed.
func TestWalkUnreadFolderIsUnknown(t *testing.T) {
	ctx := context.Background()
	root := faultTree(t)
	clean := mustWalk(t, root, Options{})
	for _, fault := range []error{syscall.EACCES, syscall.ENOENT} {
		fr := NewFaultyReader(System{}, root)
		fr.Inject(vfs.Rule{Op: vfs.OpOpen, Path: "src", Err: fault})
		tr := mustWalk(t, root, Options{Read: fr})
		entry(t, tr, "src")
		if tr.Lookup("src/b.go") != nil || !slices.Equal(tr.Unread, []string{"src"}) {
			t.Fatalf("%v: the walk holds %v, unread %q", fault, paths(tr), tr.Unread)
		}
		if d := Diff(tr, clean); len(d) != 0 {
			t.Fatalf("%v: Diff from the unread walk: %+v", fault, d)
		}
		if d := Diff(clean, tr); len(d) != 0 {
			t.Fatalf("%v: Diff to the unread walk: %+v", fault, d)
		}
		// A rescan that reads the folder forgets it was unread.
		re, err := Rescan(ctx, root, tr, []string{"src"}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(re.Unread) != 0 || re.Lookup("src/b.go") == nil {
			t.Fatalf("%v: the rescan holds %v, unread %q", fault, paths(re), re.Unread)
		}
	}
	// The root itself unreadable fails the walk: nothing of it is known.
	fr := NewFaultyReader(System{}, root)
	fr.Inject(vfs.Rule{Op: vfs.OpOpen, Path: ".", Err: syscall.EACCES})
	if _, err := Walk(ctx, root, Options{Read: fr}); !errors.Is(err, syscall.EACCES) {
		t.Fatalf("a walk of an unreadable root: %v", err)
	}
}
