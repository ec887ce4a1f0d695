package journal

import (
	"strings"
	"syscall"
	"testing"

	"cairn/internal/vfs"
)

// Create writes its lines and hands back a Writer that appends after them.
func TestCreate(t *testing.T) {
	filesystems(t, func(t *testing.T, fsys vfs.FS) {
		w, err := Create(fsys, "j.jsonl", []any{map[string]any{"v": 1, "n": 1}, map[string]any{"v": 1, "n": 2}}, Options{Sync: SyncManual})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Append(map[string]any{"v": 1, "n": 3}); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		b, err := vfs.ReadFile(fsys, "j.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		if want := "{\"n\":1,\"v\":1}\n{\"n\":2,\"v\":1}\n{\"n\":3,\"v\":1}\n"; string(b) != want {
			t.Fatalf("journal %q, want %q", b, want)
		}
		// A line that is not an object, or over the cap, writes nothing.
		if _, err := Create(fsys, "k.jsonl", []any{map[string]any{"v": 1}, []int{1}}, Options{}); err == nil {
			t.Fatal("a line that is not an object was written")
		}
		if _, err := Create(fsys, "k.jsonl", []any{map[string]any{"v": 1, "s": strings.Repeat("x", 100)}}, Options{MaxLine: 50}); err == nil {
			t.Fatal("an over-long line was written")
		}
		if _, err := fsys.Stat("k.jsonl"); !vfs.IsNotExist(err) {
			t.Fatalf("a refused journal exists: %v", err)
		}
	})
}

// A Create that fails at any call leaves no journal under its name, and
// after a crash the journal is either absent or holds every line.
func TestCreateAllOrNothing(t *testing.T) {
	lines := []any{map[string]any{"v": 1, "n": 1}, map[string]any{"v": 1, "n": 2}}
	for k := 0; ; k++ {
		mem := vfs.NewMem()
		f := vfs.NewFaulty(mem)
		f.Inject(vfs.Rule{Skip: k, Count: 1, Err: syscall.ENOSPC})
		w, err := Create(f, "j.jsonl", lines, Options{})
		if err == nil {
			w.Close()
			if k == 0 {
				t.Fatal("no call was failed")
			}
			return
		}
		if _, serr := mem.Stat("j.jsonl"); serr == nil {
			// Only a failure after the rename may leave it, and then whole.
			b, _ := vfs.ReadFile(mem, "j.jsonl")
			if string(b) != "{\"n\":1,\"v\":1}\n{\"n\":2,\"v\":1}\n" {
				t.Fatalf("call %d failed (%v) and left %q", k, err, b)
			}
		}
		mem.Crash()
		if b, err := vfs.ReadFile(mem, "j.jsonl"); err == nil && string(b) != "{\"n\":1,\"v\":1}\n{\"n\":2,\"v\":1}\n" {
			t.Fatalf("call %d failed, then a crash left %q", k, b)
		}
	}
}
