package engine

import (
	"cairn/engine/internal/convlog"
	"context"
	"fmt"
	"time"
)

// Making a session durable: Commit and the end of a turn sync the
// session's journals together (one fsync's wait per turn, not one per
// file), wait for the file tools' folder syncs meanwhile, and then replace
// the record, which is derived and rebuilt from the journal when a crash
// leaves it old.

// Commit makes everything written so far durable and rewrites the record.
func (s *Session) Commit(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.commitLocked(ctx)
}

func (s *Session) commitLocked(ctx context.Context) error { return s.commit(ctx, nil) }

// commit makes the journals durable — the items journal, the trail and
// also, when given, extra (the usage ledger's line of this turn) — with their
// fsyncs running at once, so a turn waits for about one sync, not one per
// file, and waits for the file tools' folder syncs meanwhile. Then it
// replaces the record. The record is derived: it is replaced atomically but
// not synced here (a crash may leave it old, or unreadable, and it is then
// rebuilt from the journal); Close writes it durably.
func (s *Session) commit(ctx context.Context, extra syncer) error {
	err, filesErr := s.commitParts(ctx, extra, true)
	if err != nil {
		return err
	}
	return filesErr
}

// commitTurn is commit at a turn's end: the trail is synced only every
// trailSyncEvery turns (turn_settle.go), so a turn waits for the items
// journal's sync alone.
func (s *Session) commitTurn(ctx context.Context, extra syncer) error {
	err, filesErr := s.commitParts(ctx, extra, s.trailPending >= trailSyncEvery)
	if err != nil {
		return err
	}
	return filesErr
}

// commitParts is commit, with the failure of the session's own files (err)
// apart from that of the file tools' folder syncs (filesErr): the record
// is written after the journals are synced whatever the folders did. The
// trail is synced when trail says so.
func (s *Session) commitParts(ctx context.Context, extra syncer, trail bool) (err, filesErr error) {
	// The turn's file tools' folder syncs run in the background, those
	// left to the end of the turn from now (flush), and end while the
	// journals are synced; they are waited for last. (Waiting in a
	// goroutine of its own cost a turn a wakeup of another thread, for
	// nothing.)
	epoch, flushed := s.files.Flush()
	s.retry(ctx)
	if s.recorded && s.unrecorded == nil && !s.changesOnly {
		syncs := []syncer{s.items}
		if s.audit != nil && trail {
			syncs = append(syncs, s.audit)
		}
		if extra != nil {
			syncs = append(syncs, extra)
		}
		if err = convlog.SyncAll(syncs); err != nil {
			s.kept.Items.SyncFailed, s.kept.Audit.SyncFailed = true, true
			err = s.degrade(fmt.Errorf("engine: sync session: %w", err))
		} else {
			s.kept.Items.Durable(s.items.Size())
			if trail && s.audit != nil {
				s.kept.Audit.Durable(s.audit.Size())
				s.trailPending = 0
			}
			err = s.writeRecordLocked(false)
		}
	}
	filesErr = s.files.Sync()
	if filesErr == nil && flushed {
		s.settleChanges(epoch)
	}
	return err, filesErr
}

// settleChanges writes a close line, without a sync of its own, once the
// folders of the file changes up to epoch are synced and no file tool has
// begun since (changes.Syncs.Settled): it says every change before it was made,
// so the next owner makes none of them again (changes.Stack.Unsettled). It
// rides with the next sync of the changes journal; lost in a crash, it
// costs the next owner a look at the files of those changes.
//
// Nor while a file tool, undo, redo or restore holds the undo stack (its
// mu): an undo's line may be written while its files are not all put back,
// and a close line after it would tell the next owner not to finish it
// (finishRestore). Skipped then, Close or a later end of turn writes one.
func (s *Session) settleChanges(epoch int) {
	if !s.snaps.mu.TryLock() {
		return
	}
	defer s.snaps.mu.Unlock()
	if err := s.writeChangesIf(closedLazy, func() bool { return s.files.Settled(epoch) }); err != nil {
		s.noticef("the changes journal could not be written: %v", err)
	}
}

// commitDurable syncs the journals and writes the record durably: the
// state a session is left in when it closes.
func (s *Session) commitDurable() error {
	// Close's own: no caller's context ends it, this is the last chance
	// to make the session durable.
	err, filesErr := s.commitParts(context.Background(), nil, true)
	// The usage lines still queued go to the ledger whatever became of
	// the session's own files (the ledger is the store's), and it is
	// synced. A ledger that fails leaves the turns unsettled, for the next
	// open to put back.
	lerr := s.flushUsage()
	if lerr == nil {
		lerr = s.usage.Sync(s.ws.s.ledgerStore().syncLedger)
	}
	if lerr != nil {
		s.noticef("the usage ledger could not be written: %v; the next open puts this session's lines back", lerr)
	}
	if err == nil && s.recorded && s.unrecorded == nil && !s.readOnly && !s.changesOnly {
		// The trail is synced; with the ledger, every turn is settled.
		if lerr == nil {
			s.usage.Synced()
			s.st.Settled = s.st.Turns
		}
		err = s.writeRecordLocked(true)
	}
	if err != nil {
		return err
	}
	return filesErr
}

// writeRecordLocked replaces the record when the journal moved since the
// last one; durable makes it survive a crash as well.
func (s *Session) writeRecordLocked(durable bool) error {
	if s.recordOff == s.items.Size() && (!durable || s.recordDurable) && s.recordSettled == s.st.Settled {
		return nil
	}
	// Between turns the record is refreshed at most every recordEvery, or
	// at once when what the picker shows first (the title) changed: a live
	// session is marked as owned in the picker anyway, and the record is
	// written durably when it closes.
	now := s.ws.s.now()
	if !durable && s.recordTitle == s.st.Title && now.Sub(s.recordAt) < recordEvery {
		return nil
	}
	return s.replaceRecordLocked(durable, now)
}

// RefreshRecord rewrites the record now when the synced journal has moved
// past it, so that other processes' listings are current: a runtime going
// idle calls it. Not synced: Close writes the record durably.
func (s *Session) RefreshRecord() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || !s.recorded || s.unrecorded != nil || s.readOnly || s.items == nil {
		return nil
	}
	if s.recordOff == s.items.Size() && s.recordSettled == s.st.Settled {
		return nil
	}
	if s.kept.Items.Synced != s.items.Size() {
		return nil // the record never names lines a crash may take
	}
	return s.replaceRecordLocked(false, s.ws.s.now())
}

// replaceRecordLocked writes the record of the session as it is, durably
// or not.
func (s *Session) replaceRecordLocked(durable bool, now time.Time) error {
	r := recordOf(s.st, map[string]int64{"items": s.items.Size()})
	write := writeRecord
	if !durable {
		write = replaceRecord
	}
	if err := write(s.ws.s.fsys, s.ws.dir, r); err != nil {
		if s.opts.Degrade {
			return s.degrade(err)
		}
		// The journals are synced: what was written is on disk, and the
		// record is only derived from them. Failing here would tell a
		// caller that a durable prompt was lost, and a script would write
		// it twice. The record is rebuilt by the next open, or by a
		// listing once this owner has gone (Close keeps its hint).
		if !s.recordStale {
			s.noticef("the session's record could not be written (%v); its journal holds everything, "+
				"and the record is rebuilt when the session is next listed or opened", err)
		}
		s.recordStale = true
		return nil
	}
	s.recordStale = false
	s.recordOff, s.recordDurable = s.items.Size(), durable
	s.recordTitle, s.recordAt, s.recordSettled = s.st.Title, now, s.st.Settled
	return nil
}

// recordEvery is how often a live session's record is refreshed between
// turns when its title has not changed.
const recordEvery = 2 * time.Second

// syncer is a journal that can be made durable.
type syncer = convlog.Syncer
