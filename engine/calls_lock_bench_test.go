package engine

import (
	"context"
	"testing"
)

// BenchmarkBeginCall is what a file-tool call pays to start and end on
// the disk: the workspace folder's check, the call lock taken shared and
// given back (calls_lock.go), the workspace's files opened and the path
// resolved. System calls cost microseconds each on a virtual machine, so
// this is about how many there are.
func BenchmarkBeginCall(b *testing.B) {
	st := must(Open(b.TempDir()))(b)
	defer st.Close()
	ws := must(st.Workspace(b.TempDir()))(b)
	s := ws.Create(SessionOptions{})
	must(s.ToolWrite(context.Background(), "x.txt", []byte("x")))(b)
	b.ResetTimer()
	for range b.N {
		end, err := s.beginCall(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		_, done, err := ws.files()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ws.relPath("a/b.txt"); err != nil {
			b.Fatal(err)
		}
		done()
		end()
	}
}
