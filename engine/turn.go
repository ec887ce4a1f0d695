package engine

import (
	"encoding/json"
	"fmt"
	"math"
)

// Spend is what a session or a turn cost, as the runtime reports it.
type Spend struct {
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
}

// The most one report of spend (a turn, an import) may say: a runtime
// that reports more is broken, and a total must never overflow. Above
// them a report is refused (ErrBadInput), and a line already on disk that
// says more is skipped by every sum and named by fsck.
const (
	MaxSpendTokens  = 1_000_000_000_000 // tokens, in and out each
	MaxSpendCostUSD = 10_000_000.0      // US dollars
)

// Check says what is wrong with a report of spend: a negative or absurd
// token count, or a cost that is not a finite amount from 0 to
// MaxSpendCostUSD. The error wraps ErrBadInput.
func (s Spend) Check() error {
	if why := s.problem(); why != "" {
		return fmt.Errorf("%w: %s", ErrBadInput, why)
	}
	return nil
}

// problem is what Check finds wrong with s, "" when nothing is.
func (s Spend) problem() string {
	switch {
	case s.InputTokens < 0 || s.InputTokens > MaxSpendTokens:
		return fmt.Sprintf("input tokens %d: a count from 0 to %d", s.InputTokens, int64(MaxSpendTokens))
	case s.OutputTokens < 0 || s.OutputTokens > MaxSpendTokens:
		return fmt.Sprintf("output tokens %d: a count from 0 to %d", s.OutputTokens, int64(MaxSpendTokens))
	case math.IsNaN(s.CostUSD) || s.CostUSD < 0 || s.CostUSD > MaxSpendCostUSD:
		return fmt.Sprintf("cost %v: a finite amount from 0 to %.0f US dollars", s.CostUSD, MaxSpendCostUSD)
	}
	return ""
}

// add sums two spends; a count saturates at the largest int64 rather than
// wrap (reports within Check's limits reach it only after millions of
// turns).
func (s Spend) add(o Spend) Spend {
	return Spend{addTokens(s.InputTokens, o.InputTokens), addTokens(s.OutputTokens, o.OutputTokens), s.CostUSD + o.CostUSD}
}

func addTokens(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// Trust is the standing trust a session's user granted: a map from a path or
// source to its trust level, and the rules writes recorded (a rule is what
// stops a resumed turn from reading back a file an earlier turn poisoned).
type Trust struct {
	Map   map[string]string `json:"map"`
	Rules []TrustRule       `json:"rules"`
}

// TrustRule is one recorded rule of a trust map.
type TrustRule struct {
	Path string `json:"path"`
	Rule string `json:"rule"`
}

// Turn is what the runtime reports at the end of a turn. Nil fields leave
// the session's standing state as it was.
type Turn struct {
	Plan            json.RawMessage // the plan the turn worked to
	Model           string
	Spend           Spend    // this turn's spend; the record keeps the sum
	Trust           *Trust   // the trust map after the turn
	AllowedCommands []string // commands the user said to stop asking about
	Branch          string   // the branch the turn ran on ("" = ask git)
	// Labels and Gates go to the audit trail: names only, never content.
	Labels []string
	Gates  []string
}

// turnState is the standing state a turn line records: what a resume restores.
type turnState struct {
	N               int             `json:"n"`
	Plan            json.RawMessage `json:"plan,omitempty"`
	Model           string          `json:"model,omitempty"`
	Spend           Spend           `json:"spend"`
	Trust           *Trust          `json:"trust,omitempty"`
	AllowedCommands []string        `json:"allowed_commands,omitempty"`
	Branch          string          `json:"branch,omitempty"`
	Build           string          `json:"build,omitempty"`
	// Labels and Gates are the turn's trail line's, and Usage says the
	// turn wrote a usage line: a turn syncs its items journal only, and an
	// open puts back a trail or usage line a crash lost (turn_settle.go).
	Labels []string `json:"labels,omitempty"`
	Gates  []string `json:"gates,omitempty"`
	Usage  bool     `json:"usage,omitempty"`
}
