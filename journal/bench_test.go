package journal

import (
	"strings"
	"testing"

	"cairn/internal/vfs"
)

// BenchmarkAppendTurn appends one durable turn on the real disk: a prompt, an
// assistant item and a tool result (about 200 B, 1 KB and 4 KB), then one
// Sync.
func BenchmarkAppendTurn(b *testing.B) {
	d, err := vfs.OpenDisk(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	w, _, err := OpenWriter(d, "bench.items.jsonl", Options{Sync: SyncManual})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	turn := []item{
		newItem(0, strings.Repeat("fix the failing test ", 7)),
		newItem(1, strings.Repeat("I will look at the test first. ", 30)),
		newItem(2, strings.Repeat("--- FAIL: TestX (0.00s)\n    x_test.go:12: got 1\n", 80)),
	}
	size := 0
	for _, it := range turn {
		size += len(marshal(b, it)) + 1
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		for _, it := range turn {
			if err := w.Append(it); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Sync(); err != nil {
			b.Fatal(err)
		}
	}
}
