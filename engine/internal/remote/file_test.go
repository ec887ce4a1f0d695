package remote

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestFileBucketLayout: a file remote keeps each key as a file at its
// path (the layout earlier builds' driver wrote), lists keys in key order
// under a prefix, never lists its lock or temporary files, and refuses a
// key that would leave the folder.
func TestFileBucketLayout(t *testing.T) {
	dir := t.TempDir()
	b, err := Open(context.Background(), "file://"+filepath.ToSlash(dir))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, k := range []string{"a/b", "a-b", "a/c/d", "b", "objects/ab/cd"} {
		if err := putBytes(ctx, b, k, []byte(k), Cond{IfAbsent: true}); err != nil {
			t.Fatal(err)
		}
	}
	// A key written by an earlier build's driver is read; its temporary
	// files and the lock are not keys.
	if err := os.WriteFile(filepath.Join(dir, "c"), []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a", "b.18a2b3c4d5e6f708.tmp"), []byte("half"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, _, err := b.Get(ctx, "c"); err != nil || string(got) != "old" {
		t.Fatalf("a key written by hand: %q %v", got, err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "objects", "ab", "cd")); err != nil || string(got) != "objects/ab/cd" {
		t.Fatalf("the file of a key: %q %v", got, err)
	}
	list := func(prefix string) []string {
		var keys []string
		if err := b.List(ctx, prefix, func(e Entry) error {
			keys = append(keys, e.Key)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return keys
	}
	if got, want := list(""), []string{"a-b", "a/b", "a/c/d", "b", "c", "objects/ab/cd"}; !slices.Equal(got, want) {
		t.Fatalf("list: %q, want %q", got, want)
	}
	if got, want := list("a/"), []string{"a/b", "a/c/d"}; !slices.Equal(got, want) {
		t.Fatalf("list a/: %q, want %q", got, want)
	}
	if got, want := list("a"), []string{"a-b", "a/b", "a/c/d"}; !slices.Equal(got, want) {
		t.Fatalf("list a: %q, want %q", got, want)
	}
	if got := list("nothing/"); len(got) != 0 {
		t.Fatalf("list of a missing folder: %q", got)
	}
	for _, k := range []string{"../x", "a/../../x", "/x", "a//b", "a/", "a\\b", "."} {
		if err := putBytes(ctx, b, k, []byte("x"), Cond{}); err == nil {
			t.Fatalf("key %q was written", k)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "x")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a file outside the remote: %v", err)
	}
	// A folder is not a key.
	if _, _, err := b.Get(ctx, "a"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("get of a folder: %v", err)
	}
	if err := b.Delete(ctx, "a"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("delete of a folder: %v", err)
	}
	r, err := b.Open(ctx, "a/c/d")
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	got.ReadFrom(r)
	r.Close()
	if got.String() != "a/c/d" {
		t.Fatalf("open: %q", got.String())
	}
}
