package usage

import (
	"time"

	"cairn/journal"
)

// Queue is a session's usage lines on their way to the ledger: the session
// queues one per turn that spent anything (Add), they are written together
// at most every interval without a sync (Flush), and at its close the
// session writes what is left and syncs the ledger (Sync); an open after a
// crash puts back what was lost, from the turn lines.
//
// Locks: a Queue takes none. Every field is guarded by the lock of the
// session that owns it (Session.mu); writing to the ledger takes the
// store's usage-ledger lock, a leaf below it.
type Queue struct {
	lines   []Line    // queued, not written yet
	at      time.Time // when lines were last written
	pending bool      // a line written may not be synced yet
}

// Add queues u and reports whether the queue is due to be written at now:
// interval has passed since it was last written.
func (q *Queue) Add(u Line, now time.Time, interval time.Duration) bool {
	q.lines = append(q.lines, u)
	return now.Sub(q.at) >= interval
}

// Flush writes the queued lines at now through write (the ledger's
// append), not synced. On a failure they stay queued, for the next turn
// or the close.
func (q *Queue) Flush(write func(...Line) (*journal.Writer, error), now time.Time) error {
	if len(q.lines) == 0 {
		return nil
	}
	q.at = now
	w, err := write(q.lines...)
	if err != nil {
		return err
	}
	q.lines, q.pending = nil, true
	return w.CloseUnsynced()
}

// Sync calls sync (which syncs the ledger) when a line written may not be
// synced: after it returns nil every line written is durable. The owner
// calls Synced once it has recorded that.
func (q *Queue) Sync(sync func() error) error {
	if !q.pending {
		return nil
	}
	return sync()
}

// Synced says every line written is durable and recorded so.
func (q *Queue) Synced() { q.pending = false }
