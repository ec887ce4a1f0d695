package scope

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkWalkWarm is the warm walk of B2 (cmd/cairn-bench) on a copy of
// the Go toolchain's own GOROOT/src: every file's stat checked against
// the stat cache, none read. For profiles of the walk itself.
func BenchmarkWalkWarm(b *testing.B) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Fatalf("go env GOROOT: %v", err)
	}
	root := filepath.Join(b.TempDir(), "src")
	if out, err := exec.Command("cp", "-a", filepath.Join(strings.TrimSpace(string(out)), "src"), root).CombinedOutput(); err != nil {
		b.Fatalf("cp: %v: %s", err, out)
	}
	b.ResetTimer() // the copy is not part of the profile's figures
	ctx := context.Background()
	cache := NewCache()
	// Twice, 2 s apart: the copy's files are racy (changed within the
	// cache's own timestamp) until a walk reads them 2 s after they changed.
	for range 2 {
		if _, err := Walk(ctx, root, Options{Cache: cache}); err != nil {
			b.Fatal(err)
		}
		time.Sleep(2100 * time.Millisecond)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Walk(ctx, root, Options{Cache: cache}); err != nil {
			b.Fatal(err)
		}
	}
}
