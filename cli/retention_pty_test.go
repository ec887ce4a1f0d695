package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"cairn/engine"
	"cairn/internal/ptytest"
)

// TestProgressBarOnTerminal: prune on a terminal draws its bar while it
// works (here: after the first of two workspaces), clears it and prints
// its answer; on a pipe it prints only the answer (TestPinRestoreCommands).
func TestProgressBarOnTerminal(t *testing.T) {
	ctx := context.Background()
	_, _, base := retentionEnvArgs(t, 1)
	st, err := engine.Open(base[1])
	if err != nil {
		t.Fatal(err)
	}
	ws, err := st.Workspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := ws.Create(engine.SessionOptions{})
	if _, err := s.Append(ctx, engine.Item{Type: engine.User, Text: "second directory"}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	st.Close()

	p := ptytest.Open(t, 24, 100)
	var e bytes.Buffer
	if c := Main(ctx, append(base, "storage", "prune"), strings.NewReader(""), p.TTY, &e); c != 0 {
		t.Fatalf("prune: %d %s", c, e.String())
	}
	p.Expect(t, "0 objects (0 B)")
	if out := p.Output(); !strings.Contains(out, "prune") || !strings.Contains(out, "1/2") {
		t.Fatalf("no bar drawn: %q", out)
	}
}
