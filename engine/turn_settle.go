package engine

import (
	"context"
	"fmt"

	"cairn/engine/internal/convlog"
)

// One sync a turn. A turn's end writes three lines: the turn line in the
// items journal, a line in the trail and, when the turn spent anything, a
// line in the usage ledger. Only the items journal is synced before EndTurn
// returns; the turn line holds everything the other two say (labels, gates,
// spend, model, the item count is the fold's), so they are derived, like
// the record. The trail is synced at the latest every trailSyncEvery turns
// and when the session closes, and the ledger when it closes (an ephemeral
// session's ledger line, whose session is never opened again, with its
// turn). Close then writes the record durably with settled_turn: the turn
// through which both are known durable.
//
// An open whose record says fewer settled turns than the journal holds (a
// crash, or a record rebuilt) settles them: it reads the trail and puts back
// the turn lines it lacks, reads the ledger and puts back the usage lines of
// turns marked "usage" that it lacks (matched by session and turn), syncs
// both, and records the new settled turn. So a turn that returned is on disk
// whole after a crash as soon as its session is opened again.

// trailSyncEvery bounds the trail lines a live session holds unsynced.
const trailSyncEvery = 256

type turnRec = convlog.TurnRec

// settleTurns puts back the trail and usage lines of the turns after the
// settled one that a crash lost, syncs them, and moves the settled turn.
func (s *Session) settleTurns(ctx context.Context) error {
	st := s.st
	recs, usage := convlog.Unsettled(st.TurnLog, st.Settled)
	if len(recs) == 0 {
		st.Settled = st.Turns
		return nil
	}
	lost, err := convlog.NotInTrail(s.ws.s.fsys, auditName(s.ws.dir, st.ID), recs)
	if err != nil {
		return err
	}
	for _, r := range lost {
		if err := s.writeAudit(ctx, &auditLine{Kind: "turn", At: r.At, Turn: r.Turn.N, Items: r.Items, Labels: r.Turn.Labels, Gates: r.Turn.Gates}); err != nil {
			return err
		}
	}
	if s.audit != nil {
		if err := s.audit.Sync(); err != nil {
			return err
		}
		s.kept.Audit.Durable(s.audit.Size())
	}
	s.trailPending = 0
	if usage {
		if err := s.settleUsage(recs); err != nil {
			return err
		}
	}
	st.Settled = st.Turns
	return nil
}

// settleUsage puts back the usage lines of recs marked "usage" that the
// ledger lacks, and syncs the ledger.
func (s *Session) settleUsage(recs []turnRec) error {
	ls := s.ws.s.ledgerStore()
	lost, err := convlog.NotInLedger(ls.fsys, usageName, s.st.ID, recs)
	if err != nil {
		return err
	}
	for _, r := range lost {
		t := r.Turn
		w, err := ls.writeUsage(usageLine{V: 1, Kind: "usage", At: r.At, Path: s.ws.path, Session: s.st.ID, Model: t.Model,
			InputTokens: t.Spend.InputTokens, OutputTokens: t.Spend.OutputTokens, CostUSD: t.Spend.CostUSD, Turn: t.N})
		if err != nil {
			return err
		}
		if err := w.Close(); err != nil { // synced
			return fmt.Errorf("engine: usage ledger: %w", err)
		}
	}
	return ls.syncLedger()
}

// syncLedger makes every line of the usage ledger durable, whoever wrote it.
func (s *Store) syncLedger() error {
	if err := convlog.SyncFile(s.fsys, usageName); err != nil {
		return fmt.Errorf("engine: usage ledger: %w", err)
	}
	return nil
}
