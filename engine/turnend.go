package engine

import (
	"cairn/journal"
	"context"
	"fmt"
	"strings"
)

// EndTurn closes a turn: it records the standing state the runtime reports
// (plan, spend, trust map, allowed commands, branch), appends one line to
// the audit trail and one to the usage ledger, syncs the items journal once
// and rewrites the record. When it returns nil the turn survives a crash:
// its turn line is durable, and the trail and usage lines are put back from
// it by the next open if a crash lost them (turn_settle.go).
func (s *Session) EndTurn(ctx context.Context, t Turn) error {
	if err := checkLabels("label", t.Labels); err != nil {
		return err
	}
	if err := checkLabels("gate", t.Gates); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := mkTime(s.ws.s.Now())
	branch := t.Branch
	if branch == "" {
		branch = s.st.branch
	}
	spent := t.Spend != (Spend{}) || t.Model != ""
	ts := &TurnState{N: s.st.turns + 1, Plan: t.Plan, Model: t.Model, Spend: t.Spend, Trust: t.Trust,
		AllowedCommands: t.AllowedCommands, Branch: branch, Build: Version,
		Labels: t.Labels, Gates: t.Gates, Usage: spent && !s.opts.Ephemeral}
	if err := s.writeLine(&itemLine{V: 1, Kind: kindTurn, At: &now, Turn: ts}); err != nil {
		return err
	}
	s.st.apply(&itemLine{V: 1, Kind: kindTurn, At: &now, Turn: ts})
	if err := s.writeAudit(&auditLine{Kind: "turn", At: now, Turn: ts.N, Items: len(s.st.items), Labels: t.Labels, Gates: t.Gates}); err != nil {
		return err
	}
	s.trailPending++
	// The usage line is written, not synced: the session's Close syncs the
	// ledger, and an open after a crash puts it back from the turn line.
	// An ephemeral session is never opened again, so its line is synced
	// with the items journal, at once: a turn waits for about one sync.
	var ledger *journal.Writer
	if spent {
		u := UsageLine{V: 1, Kind: "usage", At: now, Path: s.ws.path, Session: s.st.id, Model: t.Model,
			InputTokens: t.Spend.InputTokens, OutputTokens: t.Spend.OutputTokens, CostUSD: t.Spend.CostUSD, Ephemeral: s.opts.Ephemeral, Turn: ts.N}
		w, err := s.ws.s.writeUsage(u)
		if err != nil {
			// The ledger is the store's, not the session's: in Degrade
			// mode its failure is said and the session goes on recorded
			// (the next open puts the line back).
			if !s.opts.Degrade {
				return err
			}
			s.notice(fmt.Sprintf("the usage of this turn could not be written to the usage ledger: %v", err))
		} else if s.opts.Ephemeral {
			ledger = w
			defer w.Close()
		} else {
			s.usagePending = true
			w.CloseUnsynced()
		}
	}
	if ledger == nil {
		return s.commitTurn(nil) // not a nil *journal.Writer in the interface
	}
	return s.commitTurn(ledger)
}

// Rename sets the session's title as the user's own: it is written at once
// and no generated title replaces it. An empty name is refused.
func (s *Session) Rename(ctx context.Context, name string) error {
	name = strings.Join(strings.Fields(name), " ")
	if name == "" {
		return fmt.Errorf("%w: a session name cannot be empty", ErrBadInput)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := mkTime(s.ws.s.Now())
	if err := s.writeLine(&itemLine{V: 1, Kind: kindTitle, Title: name, Source: "user", At: &now}); err != nil {
		return err
	}
	s.st.title, s.st.titleSource = name, "user"
	s.st.touch(now)
	return s.commitLocked()
}

// SetGeneratedTitle replaces the title cut from the first prompt with one a
// model generated. It happens at most once per session and never replaces a
// title the user chose; it reports whether the title was taken.
func (s *Session) SetGeneratedTitle(ctx context.Context, title string) (bool, error) {
	title = strings.Join(strings.Fields(title), " ")
	s.mu.Lock()
	defer s.mu.Unlock()
	if title == "" || s.genTitled || s.st.titleSource == "user" || s.st.titleSource == "generated" {
		return false, nil
	}
	if r := []rune(title); len(r) > maxTitle {
		title = titleFromPrompt(title)
	}
	now := mkTime(s.ws.s.Now())
	if err := s.writeLine(&itemLine{V: 1, Kind: kindTitle, Title: title, Source: "generated", At: &now}); err != nil {
		return false, err
	}
	s.genTitled = true
	s.st.title, s.st.titleSource = title, "generated"
	return true, s.commitLocked()
}
