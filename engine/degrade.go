package engine

import (
	"context"
	"fmt"

	"cairn/engine/internal/convlog"
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

// degraded is what a session in Degrade mode keeps to be recorded again.
type degraded = convlog.Degraded[*auditLine]

// appendItem appends l to the items journal, kept until it is durable.
func (s *Session) appendItem(l *itemLine) error {
	if err := s.items.Append(l); err != nil {
		return err
	}
	if s.opts.Degrade {
		s.kept.Items.Wrote(l, s.items.Size())
	}
	return nil
}

// appendAudit appends l to the trail, kept until it is durable.
func (s *Session) appendAudit(l *auditLine) error {
	if err := s.audit.Append(l); err != nil {
		return err
	}
	if s.opts.Degrade {
		s.kept.Audit.Wrote(l, s.audit.Size())
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
	n := s.kept.Caught
	s.kept.Caught = 0
	if n > 0 {
		s.notice(fmt.Sprintf("this session is recorded again: %s kept in memory written", convlog.CountText(n)))
	} else {
		s.notice("this session is recorded again")
	}
}

// rewrite writes the kept lines of both journals and syncs them.
func (s *Session) rewrite(ctx context.Context) error {
	k := &s.kept.Items
	if !s.recorded {
		// Only this session's failed starts wrote its journal: a torn
		// first line is cut, not repaired.
		if err := convlog.Cut(s.ws.s.fsys, itemsName(s.ws.dir, s.st.ID), 0); err != nil {
			return err
		}
		if err := s.materialize(); err != nil {
			return err
		}
	} else if err := s.reopenItems(); err != nil {
		return err
	}
	objs := s.ws.objects()
	store := func(text string) (*Payload, error) { return convlog.WritePayload(ctx, objs, text) }
	if err := s.kept.DrainItems(store, s.appendItem); err != nil {
		return err
	}
	// The items are durable before the trail that counts them.
	if err := k.Sync(s.items); err != nil {
		return err
	}
	a := &s.kept.Audit
	if s.audit != nil || len(a.Written) > 0 || len(a.Waiting) > 0 {
		if err := s.reopenAudit(); err != nil {
			return err
		}
		if err := a.Drain(s.appendAudit); err != nil {
			return err
		}
		if err := a.Sync(s.audit); err != nil {
			return err
		}
	}
	// The record too: a session whose record could not be written is not
	// recorded again until it can be.
	if s.recordOff == s.items.Size() {
		return nil
	}
	if err := replaceRecord(s.ws.s.fsys, s.ws.dir, recordOf(s.st, map[string]int64{"items": s.items.Size()})); err != nil {
		return err
	}
	s.recordOff, s.recordDurable = s.items.Size(), false
	s.recordTitle, s.recordAt = s.st.Title, s.ws.s.now()
	return nil
}

func (s *Session) reopenItems() error {
	w, err := s.kept.Items.Reopen(s.ws.s.fsys, s.items, itemsName(s.ws.dir, s.st.ID), s.ws.s.now)
	s.items = w
	return err
}

func (s *Session) reopenAudit() error {
	w, err := s.kept.Audit.Reopen(s.ws.s.fsys, s.audit, auditName(s.ws.dir, s.st.ID), s.ws.s.now)
	s.audit = w
	return err
}
