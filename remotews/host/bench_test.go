package host

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/engine"
	"cairn/remotews"

	"github.com/google/uuid"
)

// BenchmarkTurn is a turn of 20 writes of 10 KiB and its end: over the
// local transport waiting for each answer, pipelined, and in a session
// of this process (the engine's own cost, B1b's cairn side). The first
// two less the third are the protocol's cost without ssh's.
func BenchmarkTurn(b *testing.B) {
	const n = 20
	body := func(round, i int) []byte {
		return []byte(strings.Repeat(fmt.Sprintf("%04d %04d\n", round, i), 10<<10/10+1)[:10<<10])
	}
	name := func(i int) string { return fmt.Sprintf("f%02d.go", i) }
	ctx := context.Background()
	remote := func(b *testing.B, pipelined bool) {
		e := newEnv(b)
		c, _ := e.connect(remotews.Options{})
		s, err := c.Session(ctx, uuid.NewString(), c.Binding(), false)
		if err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for r := range b.N {
			if !pipelined {
				for i := range n {
					if _, err := s.Write(ctx, "", "", name(i), body(r, i)); err != nil {
						b.Fatal(err)
					}
				}
				if err := s.Commit(ctx); err != nil {
					b.Fatal(err)
				}
				continue
			}
			pend := make([]*remotews.Pending[engine.ToolAnswer], n)
			for i := range n {
				pend[i] = s.GoWrite(ctx, "", "", name(i), body(r, i))
			}
			end := s.GoCommit(ctx)
			for _, p := range pend {
				if _, err := p.Wait(); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := end.Wait(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("waited", func(b *testing.B) { remote(b, false) })
	b.Run("pipelined", func(b *testing.B) { remote(b, true) })
	b.Run("local", func(b *testing.B) {
		root := b.TempDir()
		ws := filepath.Join(root, "ws")
		if err := os.Mkdir(ws, 0o755); err != nil {
			b.Fatal(err)
		}
		st, err := engine.Open(filepath.Join(root, "state"))
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		w, err := st.Workspace(ws)
		if err != nil {
			b.Fatal(err)
		}
		s, err := w.OpenAgent(ctx, engine.AgentSession{Agent: Agent, ID: uuid.NewString()}, engine.SessionOptions{}, true, 0)
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		b.ResetTimer()
		for r := range b.N {
			for i := range n {
				if _, err := s.ToolWrite(ctx, name(i), body(r, i)); err != nil {
					b.Fatal(err)
				}
			}
			if err := s.Commit(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}
