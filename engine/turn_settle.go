package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"cairn/engine/internal/convlog"
	"cairn/journal"
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

// turnKey names a turn's line in the trail or the ledger.
type turnKey struct {
	n  int
	at int64 // Unix milliseconds
}

// settleTurns puts back the trail and usage lines of the turns after the
// settled one that a crash lost, syncs them, and moves the settled turn.
func (s *Session) settleTurns(ctx context.Context) error {
	st := s.st
	var recs []turnRec
	usage := false
	for _, r := range st.TurnLog {
		if r.Turn.N > st.Settled {
			recs = append(recs, r)
			usage = usage || r.Turn.Usage
		}
	}
	if len(recs) == 0 {
		st.Settled = st.Turns
		return nil
	}
	// The trail: the turn numbers it holds.
	// A line counts for a turn when its number and its time match: a line
	// of a turn whose own line a crash lost (never acknowledged) does not
	// stand for the later turn that took its number.
	inTrail := map[turnKey]bool{}
	_, err := journal.Read(s.ws.s.fsys, auditName(s.ws.dir, st.ID), func(b []byte) error {
		var l auditLine
		if json.Unmarshal(b, &l) == nil && l.Kind == "turn" {
			inTrail[turnKey{l.Turn, l.At.UnixMilli()}] = true
		}
		return nil
	})
	if err != nil && !isNotExist(err) {
		return err
	}
	for _, r := range recs {
		if inTrail[turnKey{r.Turn.N, r.At.UnixMilli()}] {
			continue
		}
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
	inLedger := map[turnKey]bool{}
	_, err := journal.Read(ls.fsys, usageName, func(b []byte) error {
		var u usageLine
		if json.Unmarshal(b, &u) == nil && u.Kind == "usage" && u.Session == s.st.ID && u.Turn > 0 {
			inLedger[turnKey{u.Turn, u.At.UnixMilli()}] = true
		}
		return nil
	})
	if err != nil && !isNotExist(err) {
		return err
	}
	for _, r := range recs {
		t := r.Turn
		if !t.Usage || inLedger[turnKey{t.N, r.At.UnixMilli()}] {
			continue
		}
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
	f, err := s.fsys.OpenFile(usageName, os.O_RDONLY, 0)
	if isNotExist(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("engine: usage ledger: %w", err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("engine: usage ledger: %w", err)
	}
	return nil
}
