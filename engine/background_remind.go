package engine

import (
	"context"

	"cairn/engine/internal/bgwork"
)

// Background-work reminders (engine/internal/bgwork, reminder.go): after a
// compaction, and every agent.background_reminder_turns turns when it is
// set, a session whose own background work still runs gets a reminder
// item naming it. It is delivered as results are (Deliver), and wakes
// nothing.

// turns is how many turns the session has ended.
func (s *Session) turns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.Turns
}

// remind records a reminder when one is due after a turn ended or the
// conversation was compacted. A runtime that watches the session
// (OnBackground) hears of it and delivers it at its next safe boundary;
// otherwise (the plumbing) it is delivered at once. Best effort: the turn
// or the compaction stands whatever happens here.
func (s *Session) remind(ctx context.Context, compacted bool) {
	s.work.mu.Lock()
	opened, watched := s.work.runner != nil, len(s.work.wake) > 0
	s.work.mu.Unlock()
	if !opened {
		// A session that never ran background work has no ledger to
		// open: nothing runs, nothing to remind of (one stat, before
		// config.json is read: a Stop hook ends a turn in every session).
		if _, err := s.ws.s.fsys.Stat(workLedgerName(s.ws.dir, s.ID())); err != nil {
			return
		}
	}
	every := 0
	if !compacted {
		cfg, err := s.config()
		if err != nil || cfg.Agent.BackgroundReminderTurns == 0 {
			return
		}
		every = cfg.Agent.BackgroundReminderTurns
	}
	r, err := s.runner()
	if err != nil {
		return
	}
	d, err := r.Ledger().Remind(bgwork.Reminder{Turn: s.turns(), Every: every, Compacted: compacted})
	switch {
	case err != nil:
		s.noticef("a reminder of the running background work could not be recorded: %v", err)
	case d == nil:
	case watched:
		s.wakeUp()
	default:
		if _, err := s.Deliver(ctx); err != nil {
			s.noticef("a reminder of the running background work is recorded, not delivered yet: %v", err)
		}
	}
}
