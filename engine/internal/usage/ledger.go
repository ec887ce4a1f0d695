package usage

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
	"time"

	"cairn/engine/internal/layout"
	"cairn/internal/timefmt"
	"cairn/internal/vfs"
	"cairn/journal"
)

// Name is the ledger's name in the state folder.
const Name = layout.Usage

// Line is a usage line of the ledger. Part of the format.
type Line struct {
	V            int          `json:"v"`
	Kind         string       `json:"kind"`
	At           timefmt.Time `json:"at"`
	Path         string       `json:"path"`
	Session      string       `json:"session"`
	Model        string       `json:"model"`
	InputTokens  int64        `json:"input_tokens"`
	OutputTokens int64        `json:"output_tokens"`
	CostUSD      float64      `json:"cost_usd"`
	Ephemeral    bool         `json:"ephemeral,omitempty"`
	Turn         int          `json:"turn,omitempty"` // the session's turn number
}

// Append appends lines of any kind to the ledger of fsys without syncing
// them, and returns the writer for the caller to sync (with its own
// journals) and close. Each line is one write to a file opened for
// appending, so processes that share the ledger never interleave their
// lines; mu and the ledger's file lock are held while it opens and
// appends, so none cuts another's line in flight for a torn tail.
func Append(fsys vfs.FS, now func() time.Time, mu *sync.Mutex, lines ...any) (*journal.Writer, error) {
	mu.Lock()
	defer mu.Unlock()
	w, _, err := journal.OpenWriter(fsys, Name, journal.Options{Sync: journal.SyncManual, Now: now, Exclusive: true})
	if err != nil {
		return nil, fmt.Errorf("engine: usage ledger: %w", err)
	}
	for _, u := range lines {
		if err := w.Append(u); err != nil {
			w.Close()
			return nil, fmt.Errorf("engine: usage ledger: %w", err)
		}
	}
	w.Unlock() // the line is written: others need not wait for its sync
	return w, nil
}

// Sum is the spend of one directory and model.
type Sum struct {
	Path         string  `json:"path"`
	Model        string  `json:"model"`
	Turns        int     `json:"turns"`
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
	Ephemeral    int     `json:"ephemeral_turns"`
}

// Skipped is a line of the ledger that no sum counts: not a ledger line,
// or a usage line whose numbers are no spend (a build before the check
// wrote them). Line is its line number in usage.jsonl.
type Skipped struct {
	Line int    `json:"line"`
	Why  string `json:"why"`
}

// NotJSON is why a ledger line that is not JSON is skipped (fsck names
// those as it does in every journal).
const NotJSON = "not a JSON line"

// Read sums the ledger of fsys by directory and model, and names the lines
// it skipped; a bad line never stops the sums of the others. check says
// what is wrong with a usage line's spend ("" when nothing is). A missing
// ledger sums to nothing.
func Read(fsys vfs.FS, check func(in, out int64, cost float64) string) ([]Sum, []Skipped, error) {
	sums := map[[2]string]*Sum{}
	var skipped []Skipped
	var at []int // the good-th line read, for each skipped one
	good := 0
	st, err := journal.Read(fsys, Name, func(b []byte) error {
		good++
		var u Line
		if why := problem(b, &u, check); why != "" {
			skipped, at = append(skipped, Skipped{Why: why}), append(at, good)
			return nil
		}
		if u.Kind == "move" { // a reattribution: every line before it
			var m struct{ From, To string }
			if json.Unmarshal(b, &m) == nil && m.From != "" && m.To != "" && m.From != m.To {
				move(sums, m.From, m.To)
			}
			return nil
		}
		if u.Kind != "usage" {
			return nil
		}
		k := [2]string{u.Path, u.Model}
		x := sums[k]
		if x == nil {
			x = &Sum{Path: u.Path, Model: u.Model}
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
	if err != nil && !vfs.IsNotExist(err) {
		return nil, nil, err
	}
	for i := range skipped {
		skipped[i].Line = fileLine(at[i], st.Bad)
	}
	for _, b := range st.Bad {
		skipped = append(skipped, Skipped{Line: b.Line, Why: NotJSON})
	}
	slices.SortFunc(skipped, func(a, b Skipped) int { return a.Line - b.Line })
	out := make([]Sum, 0, len(sums))
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

// problem decodes ledger line b into u and says why no sum may count it
// ("" when one may): a line that is not a ledger line, or a usage line
// whose spend is not one (check).
func problem(b []byte, u *Line, check func(in, out int64, cost float64) string) string {
	if err := json.Unmarshal(b, u); err != nil {
		return "not a ledger line: " + err.Error()
	}
	if u.Kind != "usage" {
		return ""
	}
	if p := check(u.InputTokens, u.OutputTokens, u.CostUSD); p != "" {
		return "a spend no sum counts: " + p
	}
	return ""
}

// move adds every (from, model) sum to (to, model), never replacing it.
func move(sums map[[2]string]*Sum, from, to string) {
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

// addTokens adds two token counts, saturating at the largest int64 rather
// than wrapping.
func addTokens(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// fileLine is the line number in the file of the good-th line a
// journal.Read handed its callback, given the lines it skipped (bad, in
// file order).
func fileLine(good int, bad []journal.BadLine) int {
	n := good
	for _, b := range bad {
		if b.Line > n {
			break
		}
		n++
	}
	return n
}
