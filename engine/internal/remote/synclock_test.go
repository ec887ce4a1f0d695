package remote

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"cairn/engine/internal/errs"
	"cairn/engine/retention"
	"cairn/internal/vfs"
)

// emptyLocal is a state folder with no sessions.
type emptyLocal struct{ fsys vfs.FS }

func (l emptyLocal) FS() vfs.FS                                           { return l.fsys }
func (l emptyLocal) Sessions(context.Context) ([]SessionRef, error)       { return nil, nil }
func (l emptyLocal) Hold(context.Context, string, string) (func(), error) { return func() {}, nil }
func (l emptyLocal) Place(context.Context, string) (string, error)        { return "", errors.New("no place") }
func (l emptyLocal) Settle(context.Context, string, string)               {}
func (l emptyLocal) Card(context.Context, string, string) Card            { return Card{} }

func testSyncer(t *testing.T, fsys vfs.FS, dir string) *Syncer {
	t.Helper()
	b, err := Open(context.Background(), "file://"+filepath.ToSlash(dir))
	if err != nil {
		t.Fatal(err)
	}
	return &Syncer{Name: "origin", URL: testURL, Machine: "m", Bucket: b, Local: emptyLocal{fsys}}
}

// TestSyncHoldsTheRemotesState: while one sync of a remote runs, every
// other way into the remote's state from the same state folder (sync,
// push, pull, listing, fetch, forget, prune, a move) is refused with
// ErrStateBusy and writes nothing; once it ends, and after a sync that
// failed, the next runs.
func TestSyncHoldsTheRemotesState(t *testing.T) {
	ctx := context.Background()
	m := vfs.NewMem()
	dir := t.TempDir()
	if err := stateOf(t, 300).Save(m, "origin"); err != nil {
		t.Fatal(err)
	}
	before := must(vfs.ReadFile(m, sessionsName("origin")))
	head := must(vfs.ReadFile(m, stateName("origin")))

	first := testSyncer(t, m, dir)
	if err := first.begin(ctx); err != nil {
		t.Fatal(err)
	}
	other := testSyncer(t, m, dir)
	ops := map[string]func() error{
		"sync":   func() error { _, err := other.Sync(ctx); return err },
		"push":   func() error { _, err := other.Push(ctx); return err },
		"pull":   func() error { _, err := other.Pull(ctx); return err },
		"cards":  func() error { _, err := other.Cards(ctx); return err },
		"fetch":  func() error { _, err := other.PullSession(ctx, nthID(3)); return err },
		"forget": func() error { _, err := other.Forget(ctx, retention.Policy{}, []string{nthID(3)}, false); return err },
		"prune":  func() error { _, err := other.Prune(ctx, 0); return err },
		"moved":  func() error { return other.Moved(ctx, nthID(3), "workspaces/x") },
	}
	for name, op := range ops {
		if err := op(); !errors.Is(err, ErrStateBusy) || !errors.Is(err, errs.ErrBusy) {
			t.Errorf("%s while another sync runs: %v, want ErrStateBusy and ErrBusy", name, err)
		}
	}
	if got := must(vfs.ReadFile(m, sessionsName("origin"))); string(got) != string(before) {
		t.Fatal("a refused sync changed the sessions journal")
	}
	if got := must(vfs.ReadFile(m, stateName("origin"))); string(got) != string(head) {
		t.Fatal("a refused sync changed the state's head")
	}
	first.end()
	if _, err := other.Push(ctx); err != nil {
		t.Fatalf("a push once the other sync ended: %v", err)
	}

	// A sync that fails at its start lets the next one run.
	if err := os.WriteFile(filepath.Join(dir, formatKey), []byte(`{"v":1,"format":99}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Push(ctx); err == nil || errors.Is(err, ErrStateBusy) {
		t.Fatalf("a push to a remote of a newer format: %v, want the format's error", err)
	}
	if err := first.begin(ctx); err == nil || errors.Is(err, ErrStateBusy) {
		t.Fatalf("a sync after one that failed: %v, want the format's error", err)
	}
}
