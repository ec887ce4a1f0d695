package engine

import (
	"context"
	"fmt"

	"cairn/engine/internal/usage"
	"cairn/journal"
)

// The usage ledger, usage.jsonl at the top of the state folder, gets one
// line per turn that spent anything (package usage draws it). No session
// owns it and retention never touches it; an ephemeral store writes to the
// persistent store's ledger.

// usageLine is one usage line of the ledger.
type usageLine = usage.Line

const usageName = usage.Name

// UsageSum is the spend of one directory and model.
type UsageSum = usage.Sum

// UsageSkipped is a line of the usage ledger that no sum counts.
type UsageSkipped = usage.Skipped

// ledgerStore is the store that keeps the usage ledger (the persistent one
// for an ephemeral store).
func (s *Store) ledgerStore() *Store {
	if s.ledger != nil {
		return s.ledger
	}
	return s
}

// writeUsage appends usage lines to the ledger without syncing them, and
// returns the writer for the caller to sync and close (usage.Append).
func (s *Store) writeUsage(us ...usageLine) (*journal.Writer, error) {
	ls := make([]any, len(us))
	for i := range us {
		ls[i] = us[i]
	}
	return s.appendLedger(ls...)
}

// appendLedger appends lines of any kind to the ledger (writeUsage).
func (s *Store) appendLedger(us ...any) (*journal.Writer, error) {
	ls := s.ledgerStore()
	return usage.Append(ls.fsys, ls.now, &ls.usageMu, us...)
}

// Usage sums the ledger by directory and model.
func (s *Store) Usage(ctx context.Context) ([]UsageSum, error) {
	sums, _, err := s.UsageChecked(ctx)
	return sums, err
}

// UsageChecked is Usage that also names the lines it skipped: not ledger
// lines, or usage lines whose numbers are no spend (Spend.Check). A bad
// line never stops the sums of the others.
func (s *Store) UsageChecked(ctx context.Context) ([]UsageSum, []UsageSkipped, error) {
	return usage.Read(s.ledgerStore().fsys, func(in, out int64, cost float64) string {
		return Spend{InputTokens: in, OutputTokens: out, CostUSD: cost}.Problem()
	})
}

// fsckUsage names the ledger's lines that are JSON but that no sum counts.
func (s *Store) fsckUsage(ctx context.Context, bad reporter) {
	_, skipped, err := s.UsageChecked(ctx)
	if err != nil {
		return // fsckJournal names a ledger that cannot be read
	}
	for _, k := range skipped {
		if k.Why != usage.NotJSON {
			bad(fmt.Sprintf("%s:%d", usageName, k.Line), "%s; storage usage skips it", k.Why)
		}
	}
}
