package engine

import (
	"cairn/engine/internal/errs"
	"cairn/journal"
	"context"
	"errors"
	"fmt"
	"os"
)

// Opening a stored session: ownership, the fold of its journals, the
// settling of what a crash left, and the open line.

// Open takes ownership of session id (a full id; use Resolve for other
// references) and loads it. A second owner gets a *BusyError (ErrBusy)
// before anything is read or written.
func (w *Workspace) Open(ctx context.Context, id string, opts SessionOptions) (*Session, error) {
	if err := w.checkSession(id); err != nil {
		return nil, err
	}
	if opts.ReadOnly {
		return w.openReadOnly(ctx, id, opts, nil)
	}
	// The hint, read before the lock: acquire replaces it.
	noted, ownerDied := w.readHint(id)
	l, err := w.acquireAs(id, opts.Brief)
	var busy *BusyError
	if err != nil && opts.Degrade && !errors.As(err, &busy) {
		return w.openReadOnly(ctx, id, opts, err) // session_readonly.go
	}
	if err != nil {
		return nil, err
	}
	leased, err := w.lease(ctx, id, l, opts.Notice) // remote.go
	if err != nil {
		w.release(id, l)
		return nil, err
	}
	l = leased
	s := &Session{ws: w, opts: opts, lock: l, convLog: convLog{st: newState(id, w.path), recorded: true}}
	if err := s.load(ctx); err != nil {
		w.release(id, l)
		return nil, err
	}
	w.cleanOutputsOnOpen(ctx) // best effort (package outputs)
	w.removeTemps(id, ownerDied, noted)
	w.removeUnmade()
	return s, nil
}

// load folds the journal, opens it for appending (cutting a torn tail),
// records the open, and rebuilds the record when it disagrees.
func (s *Session) load(ctx context.Context) error {
	w := s.ws
	id := s.st.ID
	// The journal is read before it is opened for appending, so a session
	// that cannot be read is refused before anything is written to it.
	st, err := w.fold(ctx, id, foldOptions{hydrate: true, limit: w.s.eagerLimit()})
	if err != nil {
		return err
	}
	if err := w.readable(id, st); err != nil {
		return err
	}
	if r := remoteOf(st); r != nil && !s.opts.Remote {
		return &RemoteError{Session: id, Remote: *r}
	}
	wr, rep, err := journal.OpenWriter(w.s.fsys, itemsName(w.dir, id), journal.Options{Sync: journal.SyncManual, Now: w.s.now})
	if err != nil {
		return fmt.Errorf("engine: open session %s: %w", id, err)
	}
	if err := s.loadChanges(ctx); err != nil {
		wr.Close()
		return err
	}
	s.items, s.st = wr, st
	if msg := st.UnavailableNotice(); msg != "" {
		s.notice(msg)
	}
	s.kept.Items.Durable(wr.Size())
	// Turns the record does not call settled (a crash, a rebuilt record)
	// get back the trail and usage lines a crash may have lost. Best
	// effort: what cannot be put back now is tried at the next open.
	rec, rerr := readRecord(w.s.fsys, w.dir, id)
	if rerr == nil {
		st.Settled = min(rec.SettledTurn, st.Turns)
	}
	if st.Turns > st.Settled {
		if err := s.settleTurns(ctx); err != nil {
			s.noticef("the trail or usage lines of session %s's last turns could not be checked: %v", id, err)
		}
	}
	// The record is derived: rebuild it now only when it is missing,
	// unreadable or older than the journal. The open line below is synced
	// with the next turn or on Close.
	// In Degrade mode a record that cannot be written leaves the session
	// unrecorded but opened as any other: its open line is kept, and
	// written with the record once writes work again.
	// Without Degrade a record that cannot be written does not fail the
	// open either: it is derived, the journal holds everything, and what
	// the caller asks may need no write at all (a full disk must not turn
	// one failed write into every later open failing). It is said once and
	// rebuilt by the next write, open or listing.
	recordOK := true
	if rerr != nil || rec.Journals["items"] != wr.Size() || rec.SettledTurn != st.Settled {
		if err := writeRecord(w.s.fsys, w.dir, recordOf(st, map[string]int64{"items": wr.Size()})); err != nil {
			if s.opts.Degrade {
				if err := s.degrade(err); err != nil {
					return err
				}
			} else {
				s.noticef("the session's record could not be rebuilt (%v); its journal holds everything, "+
					"and the record is rebuilt when the session is next written, listed or opened", err)
				s.recordStale = true
			}
			recordOK = false
		}
	}
	if recordOK {
		s.recordOff, s.recordDurable, s.recordSettled = wr.Size(), true, st.Settled
	}
	s.resume = ResumeInfo{BranchBefore: st.Branch, BuildBefore: st.Build, Branch: gitBranch(w.path),
		Build: Version, AskTrust: st.Trust == nil, Repaired: rep.Cut}
	if s.opts.Brief {
		// No open line (SessionOptions.Brief): a hook opens the session
		// many times a turn, and an open line each would grow the journal
		// and cost Close a sync and a record rewrite. Nothing is written,
		// so the journal and the record Close finds are those checked
		// above, and Close writes neither.
		return nil
	}
	now := w.s.Now()
	if err := s.writeLine(ctx, &itemLine{V: 1, Kind: kindOpen, At: ptr(mkTime(now)), Branch: s.resume.Branch, Build: Version, PID: os.Getpid()}); err != nil {
		return err
	}
	s.st.Opened = mkTime(now)
	s.st.Branch, s.st.Build = s.resume.Branch, Version
	return nil
}

// warnNearCeiling says once when the session's payloads reach 80% of the
// eager-load ceiling, while there is still room to act.
func (s *Session) warnNearCeiling() {
	if s.ceilingWarned {
		return
	}
	if s.ceiling == 0 {
		s.ceiling = s.ws.s.eagerLimit()
	}
	limit := s.ceiling
	if limit <= 0 || s.st.Bytes*5 < limit*4 {
		return
	}
	s.ceilingWarned = true
	if s.st.Bytes > limit {
		// Past the ceiling at one write: no longer "near" it.
		s.notice(fmt.Sprintf("session %s holds %s of payloads (%d%%), over the %d MB ceiling it can be opened with: "+
			"it will not open again until the ceiling is raised (CAIRN_MAX_EAGER_LOAD_MB=%d for one run, or storage.max_eager_load_mb); "+
			"fork it to carry the useful part forward (cairn fork %s --at ITEM)",
			s.st.ID, errs.SizeMB(s.st.Bytes), s.st.Bytes*100/limit, limit>>20, s.st.Bytes>>20+1, s.st.ID))
		return
	}
	s.notice(fmt.Sprintf("session %s holds %s of payloads (%d%%), past 80%% of the %d MB ceiling it can be opened with: "+
		"fork it to carry the useful part forward (cairn fork %s --at ITEM), or raise storage.max_eager_load_mb",
		s.st.ID, errs.SizeMB(s.st.Bytes), s.st.Bytes*100/limit, limit>>20, s.st.ID))
}
