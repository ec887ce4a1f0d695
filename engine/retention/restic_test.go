package retention

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The oracle: restic's own TestApplyPolicy table as data, vendored from
// the project's shared test data with restic's licence
// (the README in testdata/restic-policy says where it came from).
const oracle = "testdata/restic-policy"

type resticSnap struct {
	Time  string   `json:"time"`
	Tags  []string `json:"tags"`
	Paths []string `json:"paths"`
}

func (s resticSnap) same(o resticSnap) bool {
	a, _ := time.Parse(time.RFC3339Nano, s.Time)
	b, _ := time.Parse(time.RFC3339Nano, o.Time)
	return a.Equal(b) && slices.Equal(s.Tags, o.Tags) && slices.Equal(nilIfEmpty(s.Paths), nilIfEmpty(o.Paths))
}

func nilIfEmpty(l []string) []string {
	if len(l) == 0 {
		return nil
	}
	return l
}

func readJSON(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(oracle, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// resticPolicy converts one entry of policies.json through Set, the path
// config and flags take.
func resticPolicy(t *testing.T, raw map[string]json.RawMessage) Policy {
	var p Policy
	for k, v := range raw {
		switch k {
		case "index":
		case "keep_tags":
			if err := json.Unmarshal(v, &p.Tags); err != nil {
				t.Fatal(err)
			}
		default:
			var s string
			if json.Unmarshal(v, &s) != nil {
				s = string(v)
			}
			if err := p.Set(k, s); err != nil {
				t.Fatalf("%s: %v", k, err)
			}
		}
	}
	return p
}

// resticWords is a reason in restic's words: its count buckets say
// "snapshot" after the bucket's name.
func resticWords(r string) string {
	base := strings.TrimPrefix(r, "oldest ")
	switch base {
	case "last", "hourly", "daily", "weekly", "monthly", "yearly":
		return r + " snapshot"
	}
	return r
}

// TestResticPolicies runs every one of restic's 40 policy cases through
// Apply and compares the kept list, its order and every reason with
// restic's golden files.
func TestResticPolicies(t *testing.T) {
	var snaps []resticSnap
	readJSON(t, "snapshots.json", &snaps)
	var policies []map[string]json.RawMessage
	readJSON(t, "policies.json", &policies)
	if len(snaps) != 103 || len(policies) != 40 {
		t.Fatalf("oracle: %d snapshots, %d policies", len(snaps), len(policies))
	}
	cands := make([]Candidate, len(snaps))
	for i, s := range snaps {
		at, err := time.Parse(time.RFC3339Nano, s.Time)
		if err != nil {
			t.Fatal(err)
		}
		cands[i] = Candidate{ID: strconv.Itoa(i), Activity: at, Tags: s.Tags}
	}
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, raw := range policies {
		var n int
		json.Unmarshal(raw["index"], &n)
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			p := resticPolicy(t, raw)
			var want struct {
				Keep    []resticSnap `json:"keep"`
				Reasons []struct {
					Matches []string `json:"matches"`
				} `json:"reasons"`
			}
			readJSON(t, fmt.Sprintf("expected/policy_keep_snapshots_%d.json", n), &want)
			var kept []Decision
			for _, d := range Apply(cands, p, now, time.UTC) {
				if d.Keep {
					kept = append(kept, d)
				}
			}
			if len(kept) != len(want.Keep) {
				t.Fatalf("policy %s: kept %d, restic keeps %d", p, len(kept), len(want.Keep))
			}
			for i, d := range kept {
				idx, _ := strconv.Atoi(d.ID)
				if !snaps[idx].same(want.Keep[i]) {
					t.Errorf("kept #%d: %+v, restic keeps %+v", i, snaps[idx], want.Keep[i])
				}
				var got []string
				for _, r := range d.Reasons {
					got = append(got, resticWords(r))
				}
				if !slices.Equal(got, want.Reasons[i].Matches) {
					t.Errorf("kept #%d (%s): reasons %q, restic %q", i, snaps[idx].Time, got, want.Reasons[i].Matches)
				}
			}
		})
	}
}
