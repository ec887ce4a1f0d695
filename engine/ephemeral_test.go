package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An ephemeral store keeps its sessions in a private temporary root in the
// folder WithEphemeralRoot names, removes it on Close, and sends spend to
// the usage ledger of the persistent state folder, labelled ephemeral.
func TestEphemeralLeavesOnlyUsage(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	runtime := t.TempDir()

	s, err := OpenEphemeral(home, WithEphemeralRoot(runtime))
	if err != nil {
		t.Fatal(err)
	}
	if !s.Ephemeral() {
		t.Fatal("OpenEphemeral gave a store that is not ephemeral")
	}
	if !strings.HasPrefix(s.Home(), runtime+string(filepath.Separator)) {
		t.Fatalf("ephemeral root %s is not under %s", s.Home(), runtime)
	}
	ws, err := s.Workspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sess := ws.Create(SessionOptions{Ephemeral: true})
	if _, err := sess.Append(ctx, Item{Type: User, Text: "a secret prompt"}); err != nil {
		t.Fatal(err)
	}
	if err := sess.EndTurn(ctx, Turn{Labels: []string{"prompt"}, Model: "m1",
		Spend: Spend{InputTokens: 12, OutputTokens: 3, CostUSD: 0.5}}); err != nil {
		t.Fatal(err)
	}
	// While it runs, the session lives in the temporary root.
	if l, _, err := ws.List(ctx); err != nil || len(l) != 1 {
		t.Fatalf("listing in the ephemeral root: %v, %v", l, err)
	}
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	// The temporary root is gone.
	left, err := os.ReadDir(runtime)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Fatalf("left in the ephemeral root's folder: %v", left)
	}
	// The persistent state folder holds no session and no history ...
	if _, err := os.Stat(filepath.Join(home, "workspaces")); !os.IsNotExist(err) {
		t.Fatalf("an ephemeral session wrote to the state folder: %v", err)
	}
	if _, err := os.Stat(filepath.Join(home, historyName)); !os.IsNotExist(err) {
		t.Fatalf("an ephemeral session wrote history: %v", err)
	}
	// ... but its usage ledger has the turn, labelled ephemeral, and no text.
	b, err := os.ReadFile(filepath.Join(home, usageName))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], `"ephemeral":true`) || strings.Contains(lines[0], "secret") {
		t.Fatalf("usage ledger: %q", b)
	}
	p, err := Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	sums, err := p.Usage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(sums) != 1 || sums[0].Model != "m1" || sums[0].Turns != 1 || sums[0].Ephemeral != 1 ||
		sums[0].InputTokens != 12 || sums[0].CostUSD != 0.5 || sums[0].Path != ws.Path() {
		t.Fatalf("usage: %+v", sums)
	}
}

// Without WithEphemeralRoot the temporary root goes to the temp folder,
// whatever $XDG_RUNTIME_DIR says: the library reads no environment (the
// cairn command passes it in).
func TestEphemeralFallsBackToTempDir(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	t.Setenv("TMPDIR", tmp)
	s, err := OpenEphemeral("")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.Home(), tmp+string(filepath.Separator)) {
		t.Fatalf("ephemeral root %s is not under the temp folder %s", s.Home(), tmp)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("left in the temp folder: %v", left)
	}
}

// An ephemeral run keeps its sessions in the temporary root, but its
// configuration is the persistent state folder's (seed 000: configuration
// keeps its normal location): config.json there rules its file tools.
func TestEphemeralReadsPersistentConfig(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(`{"snapshots":{"enabled":false},"storage":{"max_eager_load_mb":7}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := must(OpenEphemeral(home, WithEphemeralRoot(t.TempDir())))(t)
	defer s.Close()
	if c := must(s.Config())(t); c.Snapshots.Enabled || c.Storage.MaxEagerLoadMB != 7 {
		t.Fatalf("the ephemeral store's config: %+v", c)
	}
	dir := t.TempDir()
	ws := must(s.Workspace(dir))(t)
	sess := ws.Create(SessionOptions{Ephemeral: true})
	defer sess.Close()
	must(sess.ToolWrite(ctx, "a.txt", []byte("hi")))(t)
	if _, err := sess.Undo(ctx); !errors.Is(err, ErrRefused) {
		t.Fatalf("undo with snapshots off in the persistent config: %v", err)
	}
}

// TestOpenEphemeralSweepsDeadRoots: a root whose owner died (its lock file
// can be locked) is removed by the next OpenEphemeral in the same folder,
// and named by fsck until then; the root of a live store is left.
func TestOpenEphemeralSweepsDeadRoots(t *testing.T) {
	runtime := t.TempDir()
	dead := filepath.Join(runtime, "cairn-ephemeral-dead")
	for _, f := range []string{"owner.lock", "workspaces/w/sessions/s.items.jsonl"} {
		p := filepath.Join(dead, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("a private prompt\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	home := must(Open(t.TempDir(), WithEphemeralRoot(runtime)))(t)
	defer home.Close()
	r := must(home.Fsck(context.Background()))(t)
	if !strings.Contains(fmt.Sprint(r.Notes), dead) {
		t.Errorf("fsck does not name the dead run's root: %+v", r.Notes)
	}

	live := must(OpenEphemeral("", WithEphemeralRoot(runtime)))(t)
	defer live.Close()
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Fatalf("the dead run's root is still there: %v", err)
	}
	second := must(OpenEphemeral("", WithEphemeralRoot(runtime)))(t)
	if n, err := SweepEphemeral(WithEphemeralRoot(runtime)); n != 0 || err != nil {
		t.Fatalf("SweepEphemeral removed %d (%v) with both owners alive", n, err)
	}
	for _, s := range []*Store{live, second} {
		if _, err := os.Stat(filepath.Join(s.Home(), "FORMAT")); err != nil {
			t.Fatalf("a live store's root was touched: %v", err)
		}
	}
	if err := second.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(second.Home()); !os.IsNotExist(err) {
		t.Fatalf("Close left its root: %v", err)
	}
}

// TestEphemeralStoreLabelsSpend: a session of an ephemeral store is
// ephemeral whatever its options say: its spend reaches the persistent
// ledger labelled so, and its record counts none.
func TestEphemeralStoreLabelsSpend(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	s := must(OpenEphemeral(home, WithEphemeralRoot(t.TempDir())))(t)
	ws := must(s.Workspace(t.TempDir()))(t)
	sess := ws.Create(SessionOptions{})
	must(sess.Append(ctx, Item{Type: User, Text: "p"}))(t)
	if err := sess.EndTurn(ctx, Turn{Model: "m1", Spend: Spend{InputTokens: 2, CostUSD: 0.25}}); err != nil {
		t.Fatal(err)
	}
	sess.Close()
	s.Close()
	h := must(Open(home))(t)
	defer h.Close()
	u := must(h.Usage(ctx))(t)
	if len(u) != 1 || u[0].Turns != 1 || u[0].Ephemeral != 1 {
		t.Fatalf("usage %+v: want one turn, ephemeral", u)
	}
}
