package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"cairn/journal"
)

// The usage ledger, usage.jsonl at the top of the state folder, gets one line
// per turn that spent anything. No session owns it and retention never
// touches it, so spend stays visible after sessions are gone; an ephemeral
// run writes to the persistent ledger, labelled ephemeral. A line names its
// session's turn ("turn":N), which is how an open finds a line a crash lost
// and puts it back from the turn line (turn_settle.go):
//
//	{"v":1,"kind":"usage","at":T,"path":DIR,"session":ID,"model":M,"input_tokens":N,
//	 "output_tokens":N,"cost_usd":X,"ephemeral":true|absent,"turn":N}
//
// A move of a directory's sessions (migrate.go) appends
//
//	{"v":1,"kind":"move","at":T,"from":DIR,"to":DIR}
//
// and a reader counts every usage line of DIR before it as the new
// directory's; the lines are never rewritten.

// UsageLine is one line of the ledger.
type UsageLine struct {
	V            int     `json:"v"`
	Kind         string  `json:"kind"`
	At           Time    `json:"at"`
	Path         string  `json:"path"`
	Session      string  `json:"session"`
	Model        string  `json:"model"`
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
	Ephemeral    bool    `json:"ephemeral,omitempty"`
	Turn         int     `json:"turn,omitempty"` // the session's turn number
}

const usageName = "usage.jsonl"

// ledgerStore is the store that keeps the usage ledger (the persistent one
// for an ephemeral store).
func (s *Store) ledgerStore() *Store {
	if s.ledger != nil {
		return s.ledger
	}
	return s
}

// writeUsage appends a line to the ledger without syncing it, and returns
// the writer for the caller to sync (with its own journals) and close.
// Each line is one write to a file opened for appending, so processes that
// share the ledger never interleave their lines, and the writer holds the
// ledger's lock while it opens and appends, so none cuts another's line in
// flight for a torn tail.
func (s *Store) writeUsage(us ...UsageLine) (*journal.Writer, error) {
	ls := make([]any, len(us))
	for i := range us {
		ls[i] = us[i]
	}
	return s.appendLedger(ls...)
}

// appendLedger appends lines of any kind to the ledger (writeUsage).
func (s *Store) appendLedger(us ...any) (*journal.Writer, error) {
	ls := s.ledgerStore()
	ls.usageMu.Lock()
	defer ls.usageMu.Unlock()
	w, _, err := journal.OpenWriter(ls.fsys, usageName, journal.Options{Sync: journal.SyncManual, Now: ls.now, Exclusive: true})
	if err != nil {
		return nil, fmt.Errorf("engine: usage ledger: %w", err)
	}
	for _, u := range us {
		if err := w.Append(u); err != nil {
			w.Close()
			return nil, fmt.Errorf("engine: usage ledger: %w", err)
		}
	}
	w.Unlock() // the line is written: others need not wait for its sync
	return w, nil
}

// UsageSum is the spend of one directory and model.
type UsageSum struct {
	Path         string  `json:"path"`
	Model        string  `json:"model"`
	Turns        int     `json:"turns"`
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
	Ephemeral    int     `json:"ephemeral_turns"`
}

// Usage sums the ledger by directory and model.
func (s *Store) Usage(ctx context.Context) ([]UsageSum, error) {
	ls := s.ledgerStore()
	sums := map[[2]string]*UsageSum{}
	_, err := journal.Read(ls.fsys, usageName, func(b []byte) error {
		var u UsageLine
		if json.Unmarshal(b, &u) != nil {
			return nil
		}
		if u.Kind == "move" { // a reattribution (migrate.go): every line before it
			var m usageMoveLine
			if json.Unmarshal(b, &m) == nil && m.From != "" && m.To != "" && m.From != m.To {
				moveSums(sums, m.From, m.To)
			}
			return nil
		}
		if u.Kind != "usage" {
			return nil
		}
		k := [2]string{u.Path, u.Model}
		x := sums[k]
		if x == nil {
			x = &UsageSum{Path: u.Path, Model: u.Model}
			sums[k] = x
		}
		x.Turns++
		x.InputTokens += u.InputTokens
		x.OutputTokens += u.OutputTokens
		x.CostUSD += u.CostUSD
		if u.Ephemeral {
			x.Ephemeral++
		}
		return nil
	})
	if err != nil && !isNotExist(err) {
		return nil, err
	}
	out := make([]UsageSum, 0, len(sums))
	for _, v := range sums {
		out = append(out, *v)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Model < out[j].Model
	})
	return out, nil
}

// moveSums adds every (from, model) sum to (to, model), never replacing it.
func moveSums(sums map[[2]string]*UsageSum, from, to string) {
	var keys [][2]string
	for k := range sums {
		if k[0] == from {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		x := sums[k]
		delete(sums, k)
		nk := [2]string{to, k[1]}
		y := sums[nk]
		if y == nil {
			x.Path = to
			sums[nk] = x
			continue
		}
		y.Turns += x.Turns
		y.InputTokens += x.InputTokens
		y.OutputTokens += x.OutputTokens
		y.CostUSD += x.CostUSD
		y.Ephemeral += x.Ephemeral
	}
}
