package engine

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// badSpends are reports no turn or import may make: negative, absurd or
// not finite, each alone.
var badSpends = []Spend{
	{InputTokens: -1},
	{OutputTokens: -5},
	{InputTokens: math.MaxInt64 - 3},
	{OutputTokens: MaxSpendTokens + 1},
	{CostUSD: -0.01},
	{CostUSD: 1e308},
	{CostUSD: math.Inf(1)},
	{CostUSD: math.NaN()},
	{CostUSD: MaxSpendCostUSD * 2},
}

// A turn or an import that reports an absurd spend is refused as bad input
// and writes nothing: not the session's journal, not the ledger.
func TestAbsurdSpendRefusedAtInput(t *testing.T) {
	ctx := context.Background()
	s, ws := testStore(t)
	sess := newSession(t, ws)
	noErr(t, sess.EndTurn(ctx, Turn{Model: "m", Spend: Spend{InputTokens: MaxSpendTokens, OutputTokens: 1, CostUSD: MaxSpendCostUSD}}))
	noErr(t, sess.Commit(ctx))
	items := filepath.Join(ws.Folder(), "sessions", sess.ID()+".items.jsonl")
	size := func(name string) int64 {
		fi, err := os.Stat(name)
		if err != nil {
			return -1
		}
		return fi.Size()
	}
	before, ledger := size(items), size(filepath.Join(s.Home(), "usage.jsonl"))
	for _, sp := range badSpends {
		if err := sess.EndTurn(ctx, Turn{Model: "m", Spend: sp}); !errors.Is(err, ErrBadInput) {
			t.Errorf("EndTurn %+v: %v, want ErrBadInput", sp, err)
		}
		src := &ImportSource{Agent: "claude-code", SourceID: "src-1", Dir: ws.Path(), Created: time.Now(),
			Items: []ImportItem{{Key: "u1", Type: User, Text: "imported", At: time.Now()}}, Spend: sp}
		if _, err := ws.Import(ctx, src); !errors.Is(err, ErrBadInput) {
			t.Errorf("Import with spend %+v: %v, want ErrBadInput", sp, err)
		}
	}
	noErr(t, sess.Commit(ctx))
	if got := size(items); got != before {
		t.Errorf("refused turns wrote to the session: %d bytes, were %d", got, before)
	}
	if got := size(filepath.Join(s.Home(), "usage.jsonl")); got != ledger {
		t.Errorf("refused turns wrote to the ledger: %d bytes, were %d", got, ledger)
	}
	if l, _, _ := ws.List(ctx); len(l) != 1 {
		t.Errorf("a refused import made a session: %+v", l)
	}
}

// Lines an older build wrote with absurd spend never break a reader: the
// ledger sums the other lines and names those it skipped, the session's
// total leaves them out and its record is written, and fsck names each.
// Token sums saturate rather than wrap.
func TestLedgerAndRecordReadPastAbsurdSpend(t *testing.T) {
	ctx := context.Background()
	s, ws := testStore(t)
	sess := newSession(t, ws)
	noErr(t, sess.EndTurn(ctx, Turn{Model: "m", Spend: Spend{InputTokens: 7, CostUSD: 0.5}}))
	id := sess.ID()
	noErr(t, sess.Close())
	// As two turns of --cost-usd 1e308 and two of tokens near the largest
	// int64 left them: in the session's journal and in the ledger.
	items := filepath.Join(ws.Folder(), "sessions", id+".items.jsonl")
	f, err := os.OpenFile(items, os.O_APPEND|os.O_WRONLY, 0)
	noErr(t, err)
	ledger, err := os.OpenFile(filepath.Join(s.Home(), "usage.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	noErr(t, err)
	at := time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	for n, sp := range []string{`"input_tokens":0,"output_tokens":0,"cost_usd":1e308`, `"input_tokens":0,"output_tokens":0,"cost_usd":1e308`,
		`"input_tokens":9223372036854775000,"output_tokens":0,"cost_usd":0`, `"input_tokens":9223372036854775000,"output_tokens":0,"cost_usd":0`} {
		_, err := f.WriteString(`{"v":1,"kind":"turn","at":"` + at + `","turn":{"n":` + string(rune('2'+n)) + `,"model":"m","spend":{` + sp + `}}}` + "\n")
		noErr(t, err)
		_, err = ledger.WriteString(`{"v":1,"kind":"usage","at":"` + at + `","path":"` + ws.Path() + `","session":"` + id + `","model":"m",` + sp + `}` + "\n")
		noErr(t, err)
	}
	_, err = ledger.WriteString("garbage\n")
	noErr(t, err)
	noErr(t, f.Close())
	noErr(t, ledger.Close())

	sums, skipped, err := s.UsageChecked(ctx)
	if err != nil || len(sums) != 1 || sums[0].Turns != 1 || sums[0].InputTokens != 7 || sums[0].CostUSD != 0.5 {
		t.Fatalf("usage: %+v %v", sums, err)
	}
	if _, err := json.Marshal(sums); err != nil {
		t.Fatalf("usage does not marshal: %v", err)
	}
	if len(skipped) != 5 || skipped[0].Line != 2 || skipped[4].Line != 6 || !strings.Contains(skipped[0].Why, "cost") || !strings.Contains(skipped[2].Why, "input tokens") {
		t.Fatalf("skipped lines: %+v", skipped)
	}
	// The session opens, takes a turn, and its record is written with the
	// spend of its good turns only.
	re, err := ws.Open(ctx, id, SessionOptions{})
	noErr(t, err)
	noErr(t, re.EndTurn(ctx, Turn{Model: "m", Spend: Spend{OutputTokens: 3}}))
	noErr(t, re.Close())
	rec, err := readRecord(s.FS(), workspaceDir(ws.Key()), id)
	noErr(t, err)
	if rec.Spend != (Spend{InputTokens: 7, OutputTokens: 3, CostUSD: 0.5}) {
		t.Fatalf("record spend %+v", rec.Spend)
	}
	rep, err := s.Fsck(ctx)
	noErr(t, err)
	named := map[string]bool{}
	for _, p := range rep.Problems {
		if strings.Contains(p.Problem, "spend") {
			named[p.Path] = true
		}
	}
	for _, want := range []string{"usage.jsonl:2", "usage.jsonl:5", "sessions/" + id + ".items.jsonl:5", "sessions/" + id + ".items.jsonl:8"} {
		found := false
		for p := range named {
			found = found || strings.HasSuffix(p, want)
		}
		if !found {
			t.Errorf("fsck does not name %s: %+v", want, rep.Problems)
		}
	}
	// Sums saturate: they never wrap negative.
	if got := (Spend{InputTokens: math.MaxInt64 - 1}).Add(Spend{InputTokens: MaxSpendTokens}); got.InputTokens != math.MaxInt64 {
		t.Errorf("a sum past the largest int64 is %d", got.InputTokens)
	}
}
