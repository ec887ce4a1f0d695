package reliability

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"

	"cairn/engine"
	"cairn/internal/vfs"
)

// fixture is a store on an in-memory state folder and an in-memory
// workspace, each behind a fault injector, with a session that has turns,
// two file edits and one of them undone.
type fixture struct {
	state, files *vfs.Faulty
	store        *engine.Store
	ws           *engine.Workspace
	sess         *engine.Session
	id           string
	n            int
}

func newFixture(t *testing.T, dir string) *fixture {
	t.Helper()
	ctx := context.Background()
	f := &fixture{state: vfs.NewFaulty(vfs.NewMem()), files: vfs.NewFaulty(vfs.NewMem())}
	store, err := engine.OpenFS(f.state, "/mem", engine.WithWorkspaceFS(func(string) (vfs.FS, error) { return f.files, nil }))
	if err != nil {
		t.Fatal(err)
	}
	f.store = store
	if f.ws, err = store.Workspace(dir); err != nil {
		t.Fatal(err)
	}
	f.sess = f.ws.Create(engine.SessionOptions{})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err = f.sess.Append(ctx, engine.Item{Type: engine.User, Text: "first"})
	must(err)
	_, err = f.sess.Append(ctx, engine.Item{Type: engine.Assistant, Text: strings.Repeat("long answer ", 3000)})
	must(err)
	must(f.sess.EndTurn(ctx, engine.Turn{Labels: []string{"turn"}}))
	_, err = f.sess.Append(ctx, engine.Item{Type: engine.User, Text: "second"})
	must(err)
	must(f.sess.EndTurn(ctx, engine.Turn{Labels: []string{"turn"}}))
	_, err = f.sess.ToolWrite(ctx, "a.txt", []byte("one\n"))
	must(err)
	_, err = f.sess.ToolWrite(ctx, "a.txt", []byte("two\n"))
	must(err)
	_, err = f.sess.ToolWrite(ctx, "b.txt", []byte("bee\n"))
	must(err)
	_, err = f.sess.Undo(ctx)
	must(err)
	f.id = f.sess.ID()
	return f
}

// faultOps are the engine operations the fault suite runs, each on a
// fixture's open session.
var faultOps = []struct {
	name string
	run  func(ctx context.Context, f *fixture) error
}{
	{"turn", func(ctx context.Context, f *fixture) error {
		f.n++
		if _, err := f.sess.Append(ctx, engine.Item{Type: engine.User, Text: fmt.Sprintf("prompt %d", f.n)}); err != nil {
			return err
		}
		if _, err := f.sess.Append(ctx, engine.Item{Type: engine.Assistant, Text: strings.Repeat("x", 20000)}); err != nil {
			return err
		}
		return f.sess.EndTurn(ctx, engine.Turn{Labels: []string{"turn"}})
	}},
	{"rename", func(ctx context.Context, f *fixture) error { return f.sess.Rename(ctx, "renamed") }},
	{"tool-write", func(ctx context.Context, f *fixture) error {
		_, err := f.sess.ToolWrite(ctx, "c.txt", []byte("sea\n"))
		return err
	}},
	{"tool-edit", func(ctx context.Context, f *fixture) error {
		// Edit whatever the file says now: a snapshot that could not be
		// taken does not block an edit, so a faulted run may have edited.
		b, err := vfs.ReadFile(f.files, "a.txt")
		if err != nil {
			return err
		}
		old := strings.TrimSpace(string(b))
		_, err = f.sess.ToolEdit(ctx, "a.txt", old, old+"!")
		return err
	}},
	{"undo", func(ctx context.Context, f *fixture) error { _, err := f.sess.Undo(ctx); return err }},
	{"redo", func(ctx context.Context, f *fixture) error { _, err := f.sess.Redo(ctx); return err }},
	{"fork", func(ctx context.Context, f *fixture) error { _, err := f.sess.Fork(ctx, ""); return err }},
	{"revert", func(ctx context.Context, f *fixture) error {
		tr := f.sess.Transcript()
		if len(tr) == 0 { // a faulted run may have reverted already
			_, err := f.sess.Unrevert(ctx)
			return err
		}
		_, err := f.sess.Revert(ctx, tr[0].ID, engine.RevertConversation)
		return err
	}},
	{"compact", func(ctx context.Context, f *fixture) error { _, err := f.sess.Compact(ctx, "sum", ""); return err }},
	{"open", func(ctx context.Context, f *fixture) error {
		f.sess.Close()
		s, err := f.ws.Open(ctx, f.id, engine.SessionOptions{})
		if err == nil {
			f.sess = s
		}
		return err
	}},
}

// TestFaultsAtEveryCall injects ENOSPC and EIO at each write, sync, rename,
// remove and create an engine operation makes, in turn, into the state folder
// and the workspace: the operation fails cleanly (or succeeds when the call
// was not needed), nothing visible is corrupt, and once the fault is gone
// the session opens and the operation works.
func TestFaultsAtEveryCall(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	kinds := []vfs.Op{vfs.OpWrite, vfs.OpSync, vfs.OpRename, vfs.OpRemove, vfs.OpCreate}
	errs := []error{syscall.ENOSPC, syscall.EIO}
	injected, failed := 0, 0
	for _, op := range faultOps {
		for _, kind := range kinds {
			for _, side := range []string{"state", "workspace"} {
				// A dry run counts the calls of this kind the operation makes.
				f := newFixture(t, dir)
				target := f.state
				if side == "workspace" {
					target = f.files
				}
				before := target.Calls(kind)
				if err := op.run(ctx, f); err != nil {
					t.Fatalf("%s without faults: %v", op.name, err)
				}
				calls := target.Calls(kind) - before
				for k := range calls {
					for _, fault := range errs {
						f := newFixture(t, dir)
						target := f.state
						if side == "workspace" {
							target = f.files
						}
						target.Inject(vfs.Rule{Op: kind, Skip: k, Err: fault})
						err := op.run(ctx, f)
						injected++
						if err != nil {
							failed++
						}
						target.Reset()
						name := fmt.Sprintf("%s/%s/%s-call%d/%v", op.name, side, kind, k, fault)
						checkAfterFault(t, name, f, op.run)
					}
				}
			}
		}
	}
	t.Logf("faults injected: %d (%d operations failed cleanly, the rest did not need the failed call)", injected, failed)
}

// checkAfterFault: nothing is corrupt, the session reopens, and the
// operation works again.
func checkAfterFault(t *testing.T, name string, f *fixture, run func(context.Context, *fixture) error) {
	t.Helper()
	ctx := context.Background()
	f.sess.Close()
	rep, err := f.store.Fsck(ctx)
	if err != nil {
		t.Fatalf("%s: fsck: %v", name, err)
	}
	for _, p := range rep.Problems {
		t.Errorf("%s: after the fault: %s: %s", name, p.Path, p.Problem)
	}
	s, err := f.ws.Open(ctx, f.id, engine.SessionOptions{})
	if err != nil {
		t.Fatalf("%s: the session does not open once the fault is gone: %v", name, err)
	}
	f.sess = s
	if err := run(ctx, f); err != nil && !errors.Is(err, engine.ErrRefused) {
		t.Fatalf("%s: the operation fails once the fault is gone: %v", name, err)
	}
	f.sess.Close()
	if t.Failed() {
		t.FailNow()
	}
}

// TestFailedSyncIsReported: a turn whose sync fails returns the error, and
// the session does not later claim the turn was durable.
func TestFailedSyncIsReported(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, t.TempDir())
	f.state.Inject(vfs.Rule{Op: vfs.OpSync, Count: 1, Err: syscall.EIO})
	f.sess.Append(ctx, engine.Item{Type: engine.User, Text: "lost?"})
	if err := f.sess.EndTurn(ctx, engine.Turn{}); !errors.Is(err, syscall.EIO) {
		t.Fatalf("EndTurn with a failed sync: %v", err)
	}
	// The fault was one call only: a later sync would work, but the
	// journal writer must not treat the failed one as done.
	if err := f.sess.EndTurn(ctx, engine.Turn{}); err == nil {
		t.Fatal("a turn after a failed fsync reported success on the same writer")
	}
}
