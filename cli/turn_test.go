package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// A turn reporting an absurd or non-finite spend is bad usage (exit 2)
// and writes nothing: the session still takes turns, and storage usage
// still answers for every directory.
func TestTurnRefusesAbsurdSpend(t *testing.T) {
	ids, run := retentionEnv(t, 1)
	if code, _, e := run("turn", "--session", ids[0], "--model", "m", "--input-tokens", "10", "--cost-usd", "0.5"); code != 0 {
		t.Fatalf("a good turn: %d %s", code, e)
	}
	for _, args := range [][]string{
		{"--cost-usd=1e308"}, {"--cost-usd=1e308"}, {"--cost-usd=NaN"}, {"--cost-usd=+Inf"}, {"--cost-usd=-1"},
		{"--input-tokens=9223372036854775000"}, {"--output-tokens=9223372036854775000"}, {"--input-tokens=-3"},
	} {
		code, _, e := run(append([]string{"turn", "--session", ids[0], "--model", "m"}, args...)...)
		if code != ExitUsage || !strings.Contains(e, strings.Split(strings.TrimPrefix(args[0], "--"), "=")[0]) {
			t.Errorf("turn %v: exit %d %q", args, code, e)
		}
	}
	if code, _, e := run("prompt", "--session", ids[0], "again"); code != 0 {
		t.Fatalf("prompt after refused turns: %d %s", code, e)
	}
	code, o, e := run("--json", "storage", "usage")
	var sums []struct {
		Turns   int     `json:"turns"`
		CostUSD float64 `json:"cost_usd"`
	}
	if code != 0 || json.Unmarshal([]byte(o), &sums) != nil || len(sums) != 1 || sums[0].Turns != 1 || sums[0].CostUSD != 0.5 || e != "" {
		t.Fatalf("storage usage: %d %s %s", code, o, e)
	}
}
