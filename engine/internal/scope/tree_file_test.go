package scope

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestTreeFileRoundTrip: a walk kept by EncodeTree reads back equal, and
// diffs as the walk itself does; a damaged file is ErrTreeCorrupt.
func TestTreeFileRoundTrip(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "d/e"), 0o755)
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("a"), 0o644)
	os.WriteFile(filepath.Join(root, "d/e/run.sh"), []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(root, "big"), make([]byte, 100), 0o644)
	os.Symlink("a.txt", filepath.Join(root, "link"))
	tree, err := Walk(context.Background(), root, Options{MaxFileBytes: 50})
	if err != nil {
		t.Fatal(err)
	}
	b := EncodeTree(tree)
	back, err := DecodeTree(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Entries(), tree.Entries()) || back.Files != tree.Files || back.Bytes != tree.Bytes {
		t.Fatalf("round trip:\n%+v\nwant\n%+v", back, tree)
	}
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("changed"), 0o644)
	after, err := Walk(context.Background(), root, Options{MaxFileBytes: 50})
	if err != nil {
		t.Fatal(err)
	}
	if d := Diff(back, after); len(d) != 1 || d[0].Path != "a.txt" || d[0].Op != Modified {
		t.Fatalf("diff %+v", d)
	}
	for _, bad := range [][]byte{nil, b[:len(b)-1], append([]byte("x"), b[1:]...)} {
		if _, err := DecodeTree(bad); !errors.Is(err, ErrTreeCorrupt) {
			t.Errorf("damaged tree: %v", err)
		}
	}
}
