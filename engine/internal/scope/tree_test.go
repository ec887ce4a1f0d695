package scope

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestUnion: the entries of both trees in path order, each path once (the
// first tree's entry where both hold it), and the hard-link mark of either.
func TestUnion(t *testing.T) {
	a := NewTree([]Entry{{Path: "a", Size: 1}, {Path: "c", Size: 1}, {Path: "d/x", Size: 1}})
	b := NewTree([]Entry{{Path: "b", Size: 2}, {Path: "c", Size: 2}, {Path: "e", Size: 2}})
	b.HardLinked = true
	u := Union(a, b)
	var got []string
	for e := range u.All() {
		got = append(got, e.Path)
	}
	if !slices.Equal(got, []string{"a", "b", "c", "d/x", "e"}) || u.Lookup("c").Size != 1 || !u.HardLinked || u.Files != 5 {
		t.Fatalf("union %v, c %+v, hard-linked %v, files %d", got, u.Lookup("c"), u.HardLinked, u.Files)
	}
}

// TestWalkMarksHardLinks: a walk of named paths, and a whole walk, mark a
// tree that covers a regular file with other names.
func TestWalkMarksHardLinks(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"plain.txt", "sub/a.txt"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(filepath.Join(root, "sub/a.txt"), filepath.Join(root, "h.txt")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, c := range []struct {
		paths []string
		want  bool
	}{{[]string{"plain.txt"}, false}, {[]string{"h.txt"}, true}, {[]string{"sub"}, true}} {
		tr, err := WalkPaths(ctx, root, c.paths, Options{})
		if err != nil || tr.HardLinked != c.want {
			t.Errorf("WalkPaths(%v): hard-linked %v, %v; want %v", c.paths, tr != nil && tr.HardLinked, err, c.want)
		}
	}
	if tr, err := Walk(ctx, root, Options{}); err != nil || !tr.HardLinked {
		t.Errorf("Walk: %v", err)
	}
}
