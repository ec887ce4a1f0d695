package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkToolWriteTurn is one turn of cairn-bench's B1b on the disk: 20
// write-tool calls of 10 KiB files that exist, back to back, then the
// turn's end (Commit). It is what B1b's cairn side costs without its
// floor beside it, for profiling (-cpuprofile); B1b is the ratio.
func BenchmarkToolWriteTurn(b *testing.B) {
	ctx := context.Background()
	st := must(Open(b.TempDir()))(b)
	defer st.Close()
	ws := must(st.Workspace(b.TempDir()))(b)
	s := ws.Create(SessionOptions{})
	defer s.Close()
	r := rand.New(rand.NewPCG(1, 1))
	content := func() []byte {
		c := make([]byte, 10<<10)
		for i := range c {
			c[i] = "abcdefghij klmnop\n"[r.IntN(18)]
		}
		return c
	}
	turn := func() {
		for i := range 20 {
			must(s.ToolWrite(ctx, fmt.Sprintf("f%02d.go", i), content()))(b)
		}
		must(0, s.Commit(ctx))(b)
	}
	turn() // every file exists: each write has a pre-image
	b.ResetTimer()
	for range b.N {
		turn()
	}
}
