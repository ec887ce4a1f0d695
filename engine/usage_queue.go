package engine

import "time"

// usageQueue is a session's usage lines on their way to the store's usage
// ledger (usage.jsonl, usage.go): EndTurn queues one per turn that spent
// anything, they are written together at most every recordEvery without a
// sync, and Close writes what is left and syncs the ledger; an open after a
// crash puts back what was lost, from the turn lines (turn_settle.go).
//
// Lock: guarded by Session.mu. Writing to the ledger takes the store's
// usage-ledger lock, a leaf below it.
type usageQueue struct {
	lines   []usageLine // not written yet
	at      time.Time   // when lines were last written
	pending bool        // a line of this session written may not be synced
}

// add queues u and reports whether the queue is due to be written at now.
func (q *usageQueue) add(u usageLine, now time.Time) bool {
	q.lines = append(q.lines, u)
	return now.Sub(q.at) >= recordEvery
}

// flush writes the queued lines to the ledger of store s at now, not
// synced. On a failure they stay queued, for the next turn or Close.
func (q *usageQueue) flush(s *Store, now time.Time) error {
	if len(q.lines) == 0 {
		return nil
	}
	q.at = now
	w, err := s.writeUsage(q.lines...)
	if err != nil {
		return err
	}
	q.lines, q.pending = nil, true
	return w.CloseUnsynced()
}

// sync syncs the ledger of store s when a line written may not be: after
// it returns nil every line written is durable. The caller clears pending
// once it has recorded that (commitDurable).
func (q *usageQueue) sync(s *Store) error {
	if !q.pending {
		return nil
	}
	return s.ledgerStore().syncLedger()
}
