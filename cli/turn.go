package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"cairn/engine"
)

// TurnCmd ends a turn of a session from a script: the turn line, the
// trail line and the usage line, synced before it returns, as the REPL's
// turns are.
type TurnCmd struct {
	Session      string   `name:"session" required:"" placeholder:"S" help:"Session whose turn ends (id, prefix or title)."`
	Model        string   `name:"model" placeholder:"M" help:"The model the turn ran on."`
	InputTokens  int64    `name:"input-tokens" placeholder:"N" help:"Input tokens the turn spent."`
	OutputTokens int64    `name:"output-tokens" placeholder:"N" help:"Output tokens the turn spent."`
	CostUSD      float64  `name:"cost-usd" placeholder:"X" help:"What the turn cost, in US dollars."`
	Plan         string   `name:"plan" placeholder:"FILE|-" help:"The plan the turn worked to: a file, or '-' for stdin. JSON is kept as it is, other text as a JSON string."`
	Labels       []string `name:"label" placeholder:"L" help:"A label for the trail (a name, never content); repeatable."`
}

// turnAnswer is what turn prints.
type turnAnswer struct {
	Session string `json:"session"`
	Turn    int    `json:"turn"`
}

func (c *TurnCmd) Run(g *Globals) error {
	// The engine's rule, said with the flags' names before anything opens.
	for _, f := range []struct {
		name string
		bad  bool
	}{
		{"--input-tokens", engine.Spend{InputTokens: c.InputTokens}.Check() != nil},
		{"--output-tokens", engine.Spend{OutputTokens: c.OutputTokens}.Check() != nil},
	} {
		if f.bad {
			return usageErrorf("%s must be a whole number from 0 to %d", f.name, int64(engine.MaxSpendTokens))
		}
	}
	if (engine.Spend{CostUSD: c.CostUSD}).Check() != nil {
		return usageErrorf("--cost-usd must be a finite amount from 0 to %.0f", engine.MaxSpendCostUSD)
	}
	var plan json.RawMessage
	if c.Plan != "" {
		var err error
		if plan, err = readPlan(g, c.Plan); err != nil {
			return err
		}
	}
	_, s, err := g.openSession(c.Session)
	if err != nil {
		return err
	}
	defer s.Close()
	// As the REPL does: the trust map recorded is the session's own (an
	// empty one for a session that has none), so a resume has one to
	// restore.
	trust := s.Record().Trust
	if trust == nil {
		trust = &engine.Trust{Map: map[string]string{}, Rules: []engine.TrustRule{}}
	}
	t := engine.Turn{Plan: plan, Model: c.Model, Trust: trust, Labels: c.Labels,
		Spend: engine.Spend{InputTokens: c.InputTokens, OutputTokens: c.OutputTokens, CostUSD: c.CostUSD}}
	if err := s.EndTurn(g.Ctx, t); err != nil {
		return err
	}
	n := s.Record().Counts.Turns
	if err := s.Close(); err != nil {
		return err
	}
	if g.JSON {
		return g.PrintJSON(turnAnswer{s.ID(), n})
	}
	fmt.Fprintf(g.Stdout, "%s turn %d\n", s.ID(), n)
	return nil
}

// readPlan reads --plan: JSON as it is, any other text as a JSON string.
func readPlan(g *Globals, name string) (json.RawMessage, error) {
	var b []byte
	var err error
	if name == "-" {
		b, err = io.ReadAll(g.input())
	} else {
		b, err = os.ReadFile(name)
	}
	if ctxErr := g.Ctx.Err(); ctxErr != nil {
		return nil, ctxErr // cancelled while it waited for stdin: not bad usage
	}
	if err != nil {
		return nil, usageErrorf("--plan: %v", err)
	}
	if strings.TrimSpace(string(b)) == "" {
		return nil, usageErrorf("--plan: the plan is empty")
	}
	if json.Valid(b) {
		var buf bytes.Buffer
		if err := json.Compact(&buf, b); err == nil {
			return buf.Bytes(), nil
		}
	}
	out, _ := json.Marshal(strings.TrimSuffix(string(b), "\n"))
	return out, nil
}
