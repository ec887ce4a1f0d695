package remote

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFileBucketPutIsDurable: every put to a file remote (plain, create
// if absent, replace if unchanged) syncs the whole content under its
// temporary name before the rename, then syncs the folder that holds the
// key after it, and syncs each folder it made into its parent. (The file
// remote works on the disk through package os, so the test watches the
// syncs rather than cutting the power of a simulated filesystem.)
func TestFileBucketPutIsDurable(t *testing.T) {
	dir := t.TempDir()
	b, err := Open(context.Background(), "file://"+filepath.ToSlash(dir))
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	fb := b.(*folderBucket)
	fb.syncFile = func(f *os.File) error {
		got, err := os.ReadFile(f.Name())
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, "file "+filepath.Base(f.Name())+" "+string(got))
		return f.Sync()
	}
	fb.syncDir = func(d string) error {
		rel, _ := filepath.Rel(dir, d)
		events = append(events, "dir "+filepath.ToSlash(rel))
		return (&folderBucket{}).dirSync(d)
	}
	ctx := context.Background()
	key := "objects/ab/cdef"
	for i, c := range []Cond{{}, {IfVersion: "x"}, {IfAbsent: true}} {
		events = nil
		if i == 1 {
			a, err := b.Attrs(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			c.IfVersion = a.Version
		}
		if i == 2 {
			key = "logs/m/1"
		}
		data := strings.Repeat("x", 1000+i)
		if err := putBytes(ctx, b, key, []byte(data), c); err != nil {
			t.Fatal(err)
		}
		if len(events) < 2 {
			t.Fatalf("put %d: syncs %q, want the file's and its folder's", i, events)
		}
		f, d := events[len(events)-2], events[len(events)-1]
		base := filepath.Base(key)
		if !strings.HasPrefix(f, "file "+base+".") || !strings.HasSuffix(f, ".tmp "+data) {
			t.Fatalf("put %d: %q, want the temporary file synced whole before the rename", i, f)
		}
		if d != "dir "+filepath.Dir(key) {
			t.Fatalf("put %d: %q after the file's sync, want the key's folder %s synced", i, d, filepath.Dir(key))
		}
		if i != 1 {
			// New folders: each is synced into its parent first.
			want := []string{"dir .", "dir " + strings.Split(key, "/")[0]}
			if got := events[:len(events)-2]; strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("put %d: folder syncs %q, want %q", i, got, want)
			}
		}
		if got, _, err := b.Get(ctx, key); err != nil || string(got) != data {
			t.Fatalf("put %d: read back %d bytes, %v", i, len(got), err)
		}
	}
}
