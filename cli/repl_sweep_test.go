package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/engine"
)

// TestREPLSweep: an open REPL sweeps in the background when a sweep is
// due: a forget policy in config.json removes the old session, the one the
// REPL has open is kept, and the usage ledger still answers.
func TestREPLSweep(t *testing.T) {
	ctx := context.Background()
	home, _, st, ws := openTestWorkspace(t)
	old := ws.Create(engine.SessionOptions{})
	if _, err := old.Append(ctx, engine.Item{Type: engine.User, Text: "old"}); err != nil {
		t.Fatal(err)
	}
	if err := old.EndTurn(ctx, engine.Turn{Model: "m", Spend: engine.Spend{InputTokens: 3, CostUSD: 0.1}}); err != nil {
		t.Fatal(err)
	}
	old.Close()
	open := ws.Create(engine.SessionOptions{})
	if _, err := open.Append(ctx, engine.Item{Type: engine.User, Text: "open"}); err != nil {
		t.Fatal(err)
	}
	if err := open.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	defer open.Close()
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(`{"storage":{"retention":{"forget":{"keep_last":1}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	// The REPL's session is the newest: keep_last 1 keeps it, and the
	// open one is kept because it is open.
	mine := ws.Create(engine.SessionOptions{})
	if _, err := mine.Append(ctx, engine.Item{Type: engine.User, Text: "mine"}); err != nil {
		t.Fatal(err)
	}
	if err := mine.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	defer mine.Close()

	swept := make(chan struct{}, 1)
	r := &repl{g: &Globals{}, store: st, sweepHook: func() { swept <- struct{}{} }}
	stop := r.startSweep(0)
	<-swept
	stop()

	l, _, err := ws.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range l {
		ids = append(ids, s.ID)
	}
	if strings.Join(ids, ",") != mine.ID()+","+open.ID() {
		t.Fatalf("after the sweep: %v (old %s, open %s, mine %s)", ids, old.ID(), open.ID(), mine.ID())
	}
	if u, err := st.Usage(ctx); err != nil || len(u) != 1 || u[0].Turns != 1 {
		t.Fatalf("usage after the sweep: %+v %v", u, err)
	}
	cfg, _ := st.Config()
	if st.SweepDue(cfg) {
		t.Fatal("a sweep is due right after one")
	}
}
