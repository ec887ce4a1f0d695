package host

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"cairn/engine"
	"cairn/remotews"

	"github.com/google/uuid"
)

// wire counts the messages the client sends the host, by method, and
// holds them while shut: nothing reaches the host until open.
type wire struct {
	mu      sync.Mutex
	to      io.WriteCloser
	shut    bool
	held    bytes.Buffer
	methods map[string]int
}

func (w *wire) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, line := range bytes.Split(bytes.TrimSuffix(p, []byte("\n")), []byte("\n")) {
		var m struct {
			ID     any    `json:"id"`
			Method string `json:"method"`
		}
		if json.Unmarshal(line, &m) == nil && m.Method != "" && m.ID != nil {
			w.methods[m.Method]++
		}
	}
	if w.shut {
		return w.held.Write(p)
	}
	return w.to.Write(p)
}

func (w *wire) Close() error { return w.to.Close() }

func (w *wire) setShut(shut bool) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.shut = shut
	if shut {
		return nil
	}
	_, err := w.to.Write(w.held.Bytes())
	w.held.Reset()
	return err
}

func (w *wire) count(method string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.methods[method]
}

// A turn of writes costs one call per write and no other message: no
// separate acknowledgement, no second round trip. Sent with GoWrite and
// GoCommit, the whole turn leaves before the host has seen any of it
// (one round trip for the turn, not one per write), and the host runs
// the calls in the order sent: two writes of one file leave the second's
// bytes, and the turn's end comes after them.
func TestTurnPipelined(t *testing.T) {
	e := newEnv(t)
	w := &wire{methods: map[string]int{}}
	c, _ := e.connectVia(remotews.Options{}, func(to io.WriteCloser) io.WriteCloser { w.to = to; return w })
	ctx := context.Background()
	s, err := c.Session(ctx, uuid.NewString(), c.Binding(), false)
	if err != nil {
		t.Fatal(err)
	}
	const n = 20
	content := func(round, i int) []byte {
		return []byte(strings.Repeat(fmt.Sprintf("round %d file %d\n", round, i), 600))
	}
	name := func(i int) string { return fmt.Sprintf("f%02d.go", i%(n-2)) } // the last two rewrite the first two

	// Waiting for each answer: one call a write.
	before := w.count(remotews.MethodToolWrite)
	for i := range n {
		if _, err := s.Write(ctx, "", "", name(i), content(0, i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if got := w.count(remotews.MethodToolWrite) - before; got != n {
		t.Fatalf("%d writes sent %d tool.write calls", n, got)
	}
	t.Logf("a turn of %d writes, each waited for: %d calls, %d round trips", n, n+1, n+1)

	// Pipelined: every call leaves with the wire to the host shut.
	if err := w.setShut(true); err != nil {
		t.Fatal(err)
	}
	sent := map[string]int{}
	for m := range w.methods {
		sent[m] = w.count(m)
	}
	pend := make([]*remotews.Pending[engine.ToolAnswer], n)
	for i := range n {
		pend[i] = s.GoWrite(ctx, "", "", name(i), content(1, i))
	}
	end := s.GoCommit(ctx)
	if got := w.count(remotews.MethodToolWrite) - sent[remotews.MethodToolWrite]; got != n {
		t.Fatalf("with the host unreachable, %d of %d writes left", got, n)
	}
	if got := w.count(remotews.MethodSessionCommit) - sent[remotews.MethodSessionCommit]; got != 1 {
		t.Fatalf("the turn's end did not leave before the answers came (%d)", got)
	}
	t.Logf("a turn of %d writes, pipelined: %d calls, 1 round trip", n, n+1)
	if err := w.setShut(false); err != nil {
		t.Fatal(err)
	}
	for i, p := range pend {
		a, err := p.Wait()
		if err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		if a.Snapshot == nil {
			t.Fatalf("write %d answered without a snapshot: %+v", i, a)
		}
	}
	if _, err := end.Wait(); err != nil {
		t.Fatal(err)
	}
	for i := range n - 2 {
		want := content(1, i)
		if i < 2 {
			want = content(1, i+n-2)
		}
		if got := e.read(name(i)); got != string(want) {
			t.Fatalf("%s holds %.30q, want %.30q", name(i), got, want)
		}
	}
	// Every write is its own snapshot, in order: undo puts the first
	// file back to what the pipelined turn's first write of it left.
	if _, err := s.Undo(ctx); err != nil {
		t.Fatal(err)
	}
	if got := e.read(name(1)); got != string(content(1, 1)) {
		t.Fatalf("after one undo, %s holds %.30q", name(1), got)
	}
	if got := w.count(remotews.MethodSessionOpen) + w.count(remotews.MethodUndo); got != 2 {
		t.Fatalf("calls besides the tools: %v", w.methods)
	}
}
