package engine

import (
	"cairn/engine/internal/titles"
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
//
// With agent.background_reminder_turns set, a turn that ends while
// background work runs may be followed by a reminder of it (Deliver).
func (s *Session) EndTurn(ctx context.Context, t Turn) error {
	if err := s.endTurn(ctx, t); err != nil {
		return err
	}
	s.remind(ctx, false)
	return nil
}

func (s *Session) endTurn(ctx context.Context, t Turn) error {
	if err := checkLabels("label", t.Labels); err != nil {
		return err
	}
	if err := checkLabels("gate", t.Gates); err != nil {
		return err
	}
	if err := t.Spend.Check(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := mkTime(s.ws.s.Now())
	branch := t.Branch
	if branch == "" {
		branch = s.st.Branch
	}
	spent := t.Spend != (Spend{}) || t.Model != ""
	ts := &turnState{N: s.st.Turns + 1, Plan: t.Plan, Model: t.Model, Spend: t.Spend, Trust: t.Trust,
		AllowedCommands: t.AllowedCommands, Branch: branch, Build: Version,
		Labels: t.Labels, Gates: t.Gates, Usage: spent && !s.ephemeral()}
	if err := s.writeLine(ctx, &itemLine{V: 1, Kind: kindTurn, At: &now, Turn: ts}); err != nil {
		return err
	}
	s.st.Fold(&itemLine{V: 1, Kind: kindTurn, At: &now, Turn: ts})
	if err := s.writeAudit(ctx, &auditLine{Kind: "turn", At: now, Turn: ts.N, Items: s.st.Len(), Labels: t.Labels, Gates: t.Gates}); err != nil {
		return err
	}
	s.trailPending++
	if !spent {
		return s.commitTurn(ctx, nil)
	}
	u := usageLine{V: 1, Kind: "usage", At: now, Path: s.ws.path, Session: s.st.ID, Model: t.Model,
		InputTokens: t.Spend.InputTokens, OutputTokens: t.Spend.OutputTokens, CostUSD: t.Spend.CostUSD, Ephemeral: s.ephemeral(), Turn: ts.N}
	if !s.ephemeral() {
		// The usage line goes to the ledger with those of the turns
		// around it, at most every recordEvery, not synced: Close writes
		// and syncs what is left, and an open after a crash puts back
		// what was lost, from the turn line (turn_settle.go).
		var lerr error
		if s.usage.Add(u, s.ws.s.now(), recordEvery) {
			lerr = s.flushUsage()
		}
		if err := s.commitTurn(ctx, nil); err != nil {
			return err
		}
		return s.ledgerFailed(lerr)
	}
	// An ephemeral session is never opened again: its usage line is synced
	// with the items journal, at once, so the turn waits for about one sync.
	w, err := s.ws.s.writeUsage(u)
	if err != nil {
		if err := s.ledgerFailed(err); err != nil {
			return err
		}
		return s.commitTurn(ctx, nil)
	}
	defer w.Close()
	return s.commitTurn(ctx, w)
}

// ledgerFailed applies the Degrade option to a failure of the usage ledger,
// which is the store's, not the session's: in Degrade mode it is said and
// the session goes on recorded (an open puts the lines back).
func (s *Session) ledgerFailed(err error) error {
	if err == nil || !s.opts.Degrade {
		return err
	}
	s.noticef("the usage of this session's turns could not be written to the usage ledger: %v", err)
	return nil
}

// flushUsage writes the queued usage lines to the ledger, not synced. On a
// failure they stay queued, for the next turn or Close.
func (s *Session) flushUsage() error { return s.usage.Flush(s.ws.s.writeUsage, s.ws.s.now()) }

// Rename sets the session's title as the user's own: it is written at once
// and no generated title replaces it. The name is kept as given, on one
// line (titles.NameLine); an empty name is refused.
func (s *Session) Rename(ctx context.Context, name string) error {
	name = titles.NameLine(name)
	if name == "" {
		return fmt.Errorf("%w: a session name cannot be empty", ErrBadInput)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := mkTime(s.ws.s.Now())
	if err := s.writeLine(ctx, &itemLine{V: 1, Kind: kindTitle, Title: name, Source: "user", At: &now}); err != nil {
		return err
	}
	s.st.Title, s.st.TitleSource = name, "user"
	s.st.Touch(now)
	return s.commitLocked(ctx)
}

// SetGeneratedTitle replaces the title cut from the first prompt with one a
// model generated. It happens at most once per session and never replaces a
// title the user chose; it reports whether the title was taken.
func (s *Session) SetGeneratedTitle(ctx context.Context, title string) (bool, error) {
	title = strings.Join(strings.Fields(title), " ")
	s.mu.Lock()
	defer s.mu.Unlock()
	if title == "" || s.genTitled || s.st.TitleSource == "user" || s.st.TitleSource == "generated" {
		return false, nil
	}
	if r := []rune(title); len(r) > titles.Max {
		title = titles.FromPrompt(title)
	}
	now := mkTime(s.ws.s.Now())
	if err := s.writeLine(ctx, &itemLine{V: 1, Kind: kindTitle, Title: title, Source: "generated", At: &now}); err != nil {
		return false, err
	}
	s.genTitled = true
	s.st.Title, s.st.TitleSource = title, "generated"
	return true, s.commitLocked(ctx)
}

// ephemeral reports whether the session's spend is labelled ephemeral:
// SessionOptions.Ephemeral says so, or its store is a temporary root.
func (s *Session) ephemeral() bool { return s.opts.Ephemeral || s.ws.s.ephemeral }

// NameLine is a name the user gives a session (rename, /rename) as its
// title: one line, otherwise as typed (white space that breaks a line
// becomes one space).
func NameLine(name string) string { return titles.NameLine(name) }
