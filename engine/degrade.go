package engine

import (
	"context"
	"errors"
	"fmt"
	"os"

	"cairn/internal/vfs"
	"cairn/journal"
)

// Degrading and coming back. In Degrade mode a write that fails (a full
// disk, an I/O error, a missing home) does not stop the session: it goes on
// in memory, says so once, and keeps every line it could not write. Each
// later write first tries to write them again (retry); once that works the
// session is recorded again, the kept lines are in its journals in their
// order, and it says so once.
//
// A journal whose writer broke is opened again (which cuts a torn tail). A
// failed fsync is never taken as done: the lines written since the last
// good sync may be lost even though they read back, so a journal whose
// fsync failed is first cut back to the size it had at that sync, and
// those lines are written again, from memory, before the kept ones.

// keptLines is what Degrade mode keeps of one journal of the session.
type keptLines[T any] struct {
	synced     int64 // the journal's size at its last good sync
	end        int64 // its size after the last line written whole
	written    []T   // appended since the sync: not durable yet
	waiting    []T   // not written: the session was unrecorded
	syncFailed bool  // a sync failed since: written may be lost
}

// wrote notes line l, written whole, leaving the journal at size.
func (k *keptLines[T]) wrote(l T, size int64) { k.written, k.end = append(k.written, l), size }

// durable notes the journal is durable up to size.
func (k *keptLines[T]) durable(size int64) {
	k.synced, k.end, k.written, k.syncFailed = size, size, nil, false
}

// degraded is what a session in Degrade mode keeps to be recorded again.
type degraded struct {
	items  keptLines[*itemLine]
	audit  keptLines[*auditLine]
	caught int // kept items written since the session was unrecorded
}

// lost is how many items an unrecorded session holds that may not be on
// disk: not written, or written since its last good sync.
func (d *degraded) lost() int { return countItems(d.items.waiting) + countItems(d.items.written) }

func countItems(ls []*itemLine) int {
	n := 0
	for _, l := range ls {
		if l.Kind == kindItem {
			n++
		}
	}
	return n
}

// appendItem appends l to the items journal, kept until it is durable.
func (s *Session) appendItem(l *itemLine) error {
	if err := s.items.Append(l); err != nil {
		return err
	}
	if s.opts.Degrade {
		s.kept.items.wrote(l, s.items.Size())
	}
	return nil
}

// appendAudit appends l to the trail, kept until it is durable.
func (s *Session) appendAudit(l *auditLine) error {
	if err := s.audit.Append(l); err != nil {
		return err
	}
	if s.opts.Degrade {
		s.kept.audit.wrote(l, s.audit.Size())
	}
	return nil
}

// retry tries to record an unrecorded session again: the items journal and
// the trail are brought back (created, or reopened) and every line kept in
// memory is written and synced, in order. On success the session is
// recorded again and says so; on failure it stays unrecorded, with the new
// error, and says nothing more.
func (s *Session) retry(ctx context.Context) {
	if s.unrecorded == nil || s.closed || s.readOnly || ctx.Err() != nil {
		return
	}
	if err := s.rewrite(ctx); err != nil {
		// A caller that gave up stops the retry; the session stays
		// unrecorded for the reason it had.
		if ctx.Err() == nil {
			s.unrecorded = err
		}
		return
	}
	s.unrecorded = nil
	n := s.kept.caught
	s.kept.caught = 0
	if n > 0 {
		s.notice(fmt.Sprintf("this session is recorded again: %s kept in memory written", countItemsText(n)))
	} else {
		s.notice("this session is recorded again")
	}
}

// rewrite writes the kept lines of both journals and syncs them.
func (s *Session) rewrite(ctx context.Context) error {
	k := &s.kept.items
	if !s.recorded {
		// Only this session's failed starts wrote its journal: a torn
		// first line is cut, not repaired.
		if err := cutJournal(s.ws.s.fsys, itemsName(s.ws.dir, s.st.id), 0); err != nil {
			return err
		}
		if err := s.materialize(); err != nil {
			return err
		}
	} else if err := s.reopenItems(); err != nil {
		return err
	}
	objs := s.ws.objects()
	for len(k.waiting) > 0 {
		l := k.waiting[0]
		if l.Kind == kindItem && l.Text != nil && len(*l.Text) > payloadInline && !l.Quarantined {
			p, err := writePayload(ctx, objs, *l.Text)
			if err != nil {
				return err
			}
			l.Text, l.Payload = nil, p
		}
		if err := s.appendItem(l); err != nil {
			return err
		}
		k.waiting = k.waiting[1:]
		if l.Kind == kindItem {
			s.kept.caught++
		}
	}
	// The items are durable before the trail that counts them.
	if err := syncKept(s.items, k); err != nil {
		return err
	}
	a := &s.kept.audit
	if s.audit != nil || len(a.written) > 0 || len(a.waiting) > 0 {
		if err := s.reopenAudit(); err != nil {
			return err
		}
		for len(a.waiting) > 0 {
			if err := s.appendAudit(a.waiting[0]); err != nil {
				return err
			}
			a.waiting = a.waiting[1:]
		}
		if err := syncKept(s.audit, a); err != nil {
			return err
		}
	}
	// The record too: a session whose record could not be written is not
	// recorded again until it can be.
	if s.recordOff == s.items.Size() {
		return nil
	}
	if err := replaceRecord(s.ws.s.fsys, s.ws.dir, s.st.record(map[string]int64{"items": s.items.Size()})); err != nil {
		return err
	}
	s.recordOff, s.recordDurable = s.items.Size(), false
	s.recordTitle, s.recordAt = s.st.title, s.ws.s.now()
	return nil
}

func (s *Session) reopenItems() error {
	w, err := reopen(s, s.items, itemsName(s.ws.dir, s.st.id), &s.kept.items)
	s.items = w
	return err
}

func (s *Session) reopenAudit() error {
	w, err := reopen(s, s.audit, auditName(s.ws.dir, s.st.id), &s.kept.audit)
	s.audit = w
	return err
}

// syncKept syncs w, whose kept lines are k: they are durable once it
// returns nil.
func syncKept[T any](w *journal.Writer, k *keptLines[T]) error {
	if err := w.Sync(); err != nil {
		k.syncFailed = true
		return err
	}
	k.durable(w.Size())
	return nil
}

// reopen returns a writer of journal name that can be appended to. A
// working one (w) is synced and kept. One that broke is closed, the
// journal cut back to the end of its last line written whole (the rest is
// the line whose write failed: cut, not repaired, so no repair line is
// written for each retry), and opened again. When a sync of it failed, it
// is cut back to its last good sync instead, and the lines written since
// (k.written) are written again: a failed fsync is never taken as done.
// When that fails, the closed writer is returned, and the next retry tries
// again.
func reopen[T any](s *Session, w *journal.Writer, name string, k *keptLines[T]) (*journal.Writer, error) {
	if w != nil {
		err := w.Sync()
		if err == nil {
			k.durable(w.Size())
			return w, nil
		}
		if !errors.Is(err, journal.ErrBroken) && !errors.Is(err, journal.ErrClosed) {
			k.syncFailed = true // this very sync failed
		}
		w.Close()
	}
	fsys := s.ws.s.fsys
	end := k.end
	if k.syncFailed {
		end = k.synced
	}
	if err := cutJournal(fsys, name, end); err != nil {
		return w, err
	}
	nw, _, err := journal.OpenWriter(fsys, name, journal.Options{Sync: journal.SyncManual, Now: s.ws.s.now})
	if err != nil {
		return w, err
	}
	if k.syncFailed {
		k.end = nw.Size()
		for _, l := range k.written {
			if err := nw.Append(l); err != nil {
				return nw, err
			}
			k.end = nw.Size()
		}
	}
	return nw, nil
}

// cutJournal cuts journal name back to size bytes, when it is longer, and
// syncs the cut. A missing journal is left missing.
func cutJournal(fsys vfs.FS, name string, size int64) error {
	f, err := fsys.OpenFile(name, os.O_RDWR, 0)
	if vfs.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.Size() <= size {
		return nil
	}
	if err := f.Truncate(size); err != nil {
		return err
	}
	return f.Sync()
}

// countItemsText is "1 item" or "N items".
func countItemsText(n int) string {
	if n == 1 {
		return "1 item"
	}
	return fmt.Sprintf("%d items", n)
}
