package changes

import (
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"cairn/internal/timefmt"
	"cairn/internal/vfs"
	"cairn/journal"
)

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
			wr := &Writer{w: w}
			faulty.Inject(vfs.Rule{Op: op, Err: syscall.ENOSPC})
			err = wr.Close(timefmt.Mk(time.Now()), false)
			if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "changes journal") {
				t.Fatalf("close: %v; want the failure named", err)
			}
			if wr.w != nil || !wr.closed {
				t.Fatalf("the journal is left open: %+v", wr)
			}
		})
	}
}
