package engine

import (
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"cairn/internal/vfs"
	"cairn/journal"
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

// TestChangesCloseLineFailure: the close line that cannot be written is
// returned, not dropped, and the journal is closed all the same.
func TestChangesCloseLineFailure(t *testing.T) {
	for _, op := range []vfs.Op{vfs.OpWrite, vfs.OpSync} {
		t.Run(op.String(), func(t *testing.T) {
			faulty := vfs.NewFaulty(vfs.NewMem())
			w, _, err := journal.OpenWriter(faulty, "c.changes.jsonl", journal.Options{Sync: journal.SyncManual})
			if err != nil {
				t.Fatal(err)
			}
			st := &snapStack{w: w}
			faulty.Inject(vfs.Rule{Op: op, Err: syscall.ENOSPC})
			err = st.close(mkTime(time.Now()), false)
			if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "changes journal") {
				t.Fatalf("close: %v; want the failure named", err)
			}
			if st.w != nil || !st.closed {
				t.Fatalf("the journal is left open: %+v", st)
			}
		})
	}
}
