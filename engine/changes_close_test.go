package engine

import (
	"errors"
	"strings"
	"syscall"
	"testing"

	"cairn/internal/vfs"
)

// TestCloseReportsChangesJournalFailure: Close returns what failed of the
// changes journal's end (its last sync), rather than dropping it; the
// next owner still opens the session and its snapshots.
func TestCloseReportsChangesJournalFailure(t *testing.T) {
	e := newRvEnvWith(t, nil, true)
	e.prompt("go")
	e.write("", "a.txt", "a1")
	id := e.s.ID()
	e.faulty.Inject(vfs.Rule{Op: vfs.OpSync, Path: "workspaces/*/sessions/*.changes.jsonl", Err: syscall.EIO})
	err := e.s.Close()
	if !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), "changes journal") {
		t.Fatalf("Close: %v; want the changes journal's failure", err)
	}
	e.faulty.Reset()
	s := must(e.ws.Open(e.ctx, id, SessionOptions{}))(t)
	defer s.Close()
	if l := must(s.Snapshots(e.ctx))(t); len(l.Snapshots) != 1 {
		t.Fatalf("snapshots after reopening: %+v", l)
	}
}
