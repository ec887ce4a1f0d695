package engine

import (
	"context"
	"strings"
	"syscall"
	"testing"

	"cairn/internal/vfs"
)

// A session that is not in Degrade mode (a plumbing command) whose journals
// synced but whose derived record could not be written has lost nothing:
// Commit and Close succeed (an error would make a script write the prompt
// twice), say so through Notice, and the next listing rebuilds the record
// from the journal.
func TestRecordFailureAfterSyncedJournalIsNotAnError(t *testing.T) {
	ctx := context.Background()
	mem := vfs.NewMem()
	state := vfs.NewFaulty(mem)
	st := must(OpenFS(state, "/mem", WithWorkspaceFS(func(string) (vfs.FS, error) { return vfs.NewMem(), nil })))(t)
	defer st.Close()
	ws := must(st.Workspace(t.TempDir()))(t)
	var notices []string
	opts := SessionOptions{Notice: func(m string) { notices = append(notices, m) }}
	s := ws.Create(opts)
	if _, err := s.Append(ctx, Item{Type: User, Text: "one"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	id := s.ID()

	s = must(ws.Open(ctx, id, opts))(t)
	state.Inject(vfs.Rule{Op: vfs.OpCreate, Path: "workspaces/*/sessions/*.json*", Err: syscall.ENOSPC})
	if _, err := s.Append(ctx, Item{Type: User, Text: "two"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx); err != nil {
		t.Fatalf("Commit with only the record failing: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close with only the record failing: %v", err)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "record could not be written") {
		t.Fatalf("notices %q", notices)
	}
	state.Reset()

	// The prompt is on disk, once.
	r := must(ws.Read(ctx, id))(t)
	if n := len(r.Transcript()); n != 2 {
		t.Fatalf("the journal holds %d items, want 2", n)
	}
	// The listing settles the record the failed write left behind.
	l, _, err := ws.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(l) != 1 || l[0].Items != 2 {
		t.Fatalf("listing after the failed record: %+v", l)
	}
	if rec := must(readRecord(mem, ws.dir, id))(t); rec.Counts.Items != 2 {
		t.Fatalf("the record says %d items", rec.Counts.Items)
	}
}
