package engine

import (
	"context"
	"fmt"
	"testing"

	"cairn/internal/vfs"
)

// TestBackToBackWriteSyncs: in a turn of write-tool edits back to back,
// each edit makes exactly two durable writes, its change line and its
// staged file (which must be durable before its rename can be trusted),
// and nothing more: no folder sync of its own, nor a wait for the folder
// sync of the edit before it. The end of the turn syncs each folder the
// edits touched once, and the session's journals. That is what bounds
// cairn-bench's B1b (two fsyncs, two flushes of a disk's write cache, an
// edit, where its floor makes one), counted here exactly rather than
// timed: a change that adds a sync to the edit path fails.
func TestBackToBackWriteSyncs(t *testing.T) {
	ctx := context.Background()
	stateMem, wsMem := vfs.NewMem(), vfs.NewMem()
	must(0, stateMem.MkdirAll(workspacesDir, vfs.DirPerm))(t)
	must(0, stateMem.SyncDir("."))(t)
	state, ws := vfs.NewFaulty(stateMem), vfs.NewFaulty(wsMem)
	st := must(OpenFS(state, "/mem", WithWorkspaceFS(func(string) (vfs.FS, error) { return ws, nil })))(t)
	defer st.Close()
	w := must(st.Workspace(t.TempDir()))(t)
	s := w.Create(SessionOptions{})
	defer s.Close()
	paths := func(i int) string { return fmt.Sprintf("%s/f%02d.go", []string{"src", "lib"}[i%2], i) }
	content := func(round, i int) []byte { return fmt.Appendf(nil, "round %d of file %d\n%0*d", round, i, 10<<10, i) }
	must(s.Append(ctx, Item{Type: User, Text: "edit twenty files"}))(t)
	for i := range 20 { // every file exists, and every folder: each edit has a pre-image
		must(s.ToolWrite(ctx, paths(i), content(0, i)))(t)
	}
	must(0, s.Commit(ctx))(t)

	syncs := func() (int, int) { return state.Calls(vfs.OpSync), ws.Calls(vfs.OpSync) }
	must(s.Append(ctx, Item{Type: User, Text: "and again"}))(t)
	sTurn, wTurn := syncs()
	for i := range 20 {
		s0, w0 := syncs()
		must(s.ToolWrite(ctx, paths(i), content(1, i)))(t)
		s1, w1 := syncs()
		if s1-s0 != 1 || w1-w0 != 1 {
			t.Fatalf("edit %d synced the state folder's files %d times and the workspace's %d times, want once each (its change line, its staged file)",
				i, s1-s0, w1-w0)
		}
	}
	s0, w0 := syncs()
	must(0, s.Commit(ctx))(t)
	s1, w1 := syncs()
	if w1-w0 != 2 {
		t.Errorf("the end of the turn made %d syncs in the workspace, want 2 (src and lib, once each)", w1-w0)
	}
	if s1-s0 != 1 {
		t.Errorf("the end of the turn made %d syncs in the state folder, want 1 (the items journal)", s1-s0)
	}
	// Background syncs are counted too, whenever they ran.
	if s1-sTurn != 21 || w1-wTurn != 22 {
		t.Errorf("the turn made %d syncs in the state folder and %d in the workspace, want 21 and 22", s1-sTurn, w1-wTurn)
	}
}
