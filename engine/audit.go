package engine

import (
	"context"
	"fmt"

	"cairn/engine/internal/audit"
	"cairn/internal/lazyre"
	"cairn/journal"
)

// The audit trail, <id>.audit.jsonl, holds one line a turn and one line per
// audited event. It holds labels, gate names, counts and outcomes: never a
// prompt, a file's content or a tool's output. Labels are checked to be
// names, so content cannot reach the trail by mistake.

// The trail's lines and events (package audit).
type (
	auditLine  = audit.Line
	auditStep  = audit.Step
	auditEvent = audit.Event
)

var labelRE = lazyre.New(audit.LabelPattern)

func checkLabels(kind string, ls []string) error { return audit.CheckLabels(kind, ls) }

// writeAudit appends a line to the trail (not synced: the turn's commit
// syncs it). In Degrade mode a line that cannot be written is kept, as the
// items journal's are (degrade.go).
func (s *Session) writeAudit(ctx context.Context, l *auditLine) error {
	l.V, l.Session = 1, s.st.ID
	s.retry(ctx)
	if s.unrecorded != nil {
		s.kept.Audit.Waiting = append(s.kept.Audit.Waiting, l)
		return nil
	}
	err := s.materialize()
	if err == nil && s.audit == nil {
		w, _, oerr := journal.OpenWriter(s.ws.s.fsys, auditName(s.ws.dir, s.st.ID), journal.Options{Sync: journal.SyncManual, Now: s.ws.s.now})
		if oerr != nil {
			err = fmt.Errorf("engine: open trail: %w", oerr)
		} else {
			s.audit = w
			s.kept.Audit.Durable(w.Size())
		}
	}
	if err == nil {
		err = s.appendAudit(l)
	}
	if err != nil && s.opts.Degrade {
		s.kept.Audit.Waiting = append(s.kept.Audit.Waiting, l)
	}
	return s.degrade(err)
}

// recordEvent writes an event to the trail and makes it durable.
func (s *Session) recordEvent(ctx context.Context, e auditEvent) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := checkLabels("event", []string{e.Event}); err != nil {
		return err
	}
	l := &auditLine{Kind: "event", At: mkTime(s.ws.s.Now()), Event: e.Event, Outcome: e.Outcome,
		Action: e.Action, Steps: e.Steps, Files: e.Files, Rule: e.Rule}
	if err := s.writeAudit(ctx, l); err != nil {
		return err
	}
	return s.commitLocked(ctx)
}
