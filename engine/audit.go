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

// auditLine is one line of the trail.
type auditLine struct {
	V       int         `json:"v"`
	Kind    string      `json:"kind"` // "turn" or "event"
	At      Time        `json:"at"`
	Session string      `json:"session"`
	Turn    int         `json:"turn,omitempty"`
	Items   int         `json:"items,omitempty"`
	Labels  []string    `json:"labels,omitempty"`
	Gates   []string    `json:"gates,omitempty"`
	Event   string      `json:"event,omitempty"`
	Outcome string      `json:"outcome,omitempty"`
	Action  string      `json:"action,omitempty"`
	Steps   []auditStep `json:"steps,omitempty"`
	Files   int         `json:"files,omitempty"`
	Rule    string      `json:"rule,omitempty"`
}

// auditStep counts what one step of an audited restore did.
type auditStep struct {
	ID       string `json:"id"`
	Restored int    `json:"restored"`
	Removed  int    `json:"removed"`
	Skipped  int    `json:"skipped"`
	// Unchanged counts the files already as the step would leave them.
	Unchanged int `json:"unchanged,omitempty"`
}

// auditEvent is an audited event other than a turn.
type auditEvent struct {
	Event   string // e.g. session.snapshot_restore, snapshot.required
	Outcome string // ok, denied, refused, failed
	Action  string
	Steps   []auditStep
	Files   int
	Rule    string
}

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
