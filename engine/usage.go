package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
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

// usageLine is one line of the ledger.
type usageLine struct {
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

// UsageSkipped is a line of the ledger that no sum counts: not a ledger
// line, or a usage line whose numbers are no spend (Spend.Check; a build
// before the check wrote them). Line is its line number in usage.jsonl.
type UsageSkipped struct {
	Line int    `json:"line"`
	Why  string `json:"why"`
}

// Usage sums the ledger by directory and model.
func (s *Store) Usage(ctx context.Context) ([]UsageSum, error) {
	sums, _, err := s.UsageChecked(ctx)
	return sums, err
}

// UsageChecked is Usage that also names the lines it skipped. A bad line
// never stops the sums of the others.
func (s *Store) UsageChecked(ctx context.Context) ([]UsageSum, []UsageSkipped, error) {
	ls := s.ledgerStore()
	sums := map[[2]string]*UsageSum{}
	var skipped []UsageSkipped
	var at []int // the good-th line read, for each skipped one
	good := 0
	st, err := journal.Read(ls.fsys, usageName, func(b []byte) error {
		good++
		var u usageLine
		if why := usageLineProblem(b, &u); why != "" {
			skipped, at = append(skipped, UsageSkipped{Why: why}), append(at, good)
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
		x.InputTokens = addTokens(x.InputTokens, u.InputTokens)
		x.OutputTokens = addTokens(x.OutputTokens, u.OutputTokens)
		x.CostUSD += u.CostUSD
		if u.Ephemeral {
			x.Ephemeral++
		}
		return nil
	})
	if err != nil && !isNotExist(err) {
		return nil, nil, err
	}
	for i := range skipped {
		skipped[i].Line = fileLine(at[i], st.Bad)
	}
	for _, b := range st.Bad {
		skipped = append(skipped, UsageSkipped{Line: b.Line, Why: notJSONLine})
	}
	slices.SortFunc(skipped, func(a, b UsageSkipped) int { return a.Line - b.Line })
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
	return out, skipped, nil
}

// notJSONLine is why a ledger line that is not JSON is skipped (fsck names
// those as it does in every journal).
const notJSONLine = "not a JSON line"

// fsckUsage names the ledger's lines that are JSON but that no sum counts.
func (s *Store) fsckUsage(ctx context.Context, bad reporter) {
	_, skipped, err := s.UsageChecked(ctx)
	if err != nil {
		return // fsckJournal names a ledger that cannot be read
	}
	for _, k := range skipped {
		if k.Why != notJSONLine {
			bad(fmt.Sprintf("%s:%d", usageName, k.Line), "%s; storage usage skips it", k.Why)
		}
	}
}

// usageLineProblem decodes ledger line b into u and says why no sum may
// count it ("" when one may): a line that is not a ledger line, or a usage
// line whose spend is not one (Spend.Check).
func usageLineProblem(b []byte, u *usageLine) string {
	if err := json.Unmarshal(b, u); err != nil {
		return "not a ledger line: " + err.Error()
	}
	if u.Kind != "usage" {
		return ""
	}
	if p := (Spend{u.InputTokens, u.OutputTokens, u.CostUSD}).problem(); p != "" {
		return "a spend no sum counts: " + p
	}
	return ""
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
		y.InputTokens = addTokens(y.InputTokens, x.InputTokens)
		y.OutputTokens = addTokens(y.OutputTokens, x.OutputTokens)
		y.CostUSD += x.CostUSD
		y.Ephemeral += x.Ephemeral
	}
}
