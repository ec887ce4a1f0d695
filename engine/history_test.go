package engine

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestHistoryRules(t *testing.T) {
	s, _ := testStore(t)
	for _, p := range []string{"one", "two", "two", "", "  ", "three"} {
		if err := s.AddHistory(p, "/w"); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.History(); !slices.Equal(got, []string{"one", "two", "three"}) {
		t.Fatalf("history %q: duplicates not collapsed or empty prompts kept", got)
	}
	// A cancelled prompt is removed again.
	s.AddHistory("oops", "/w")
	s.CancelHistory("oops")
	if got := s.History(); !slices.Equal(got, []string{"one", "two", "three"}) {
		t.Fatalf("after cancel: %q", got)
	}
	// Cancelling something that is not the newest entry changes nothing.
	s.CancelHistory("one")
	if got := s.History(); len(got) != 3 {
		t.Fatalf("after a stray cancel: %q", got)
	}
}

func TestHistoryCapped(t *testing.T) {
	s, _ := testStore(t)
	os.WriteFile(filepath.Join(s.Home(), "config.json"), []byte(`{"history":{"max":10}}`), 0o600)
	for i := range 40 {
		s.AddHistory(strings.Repeat("p", i+1), "/w")
	}
	got := s.History()
	if len(got) != 10 || got[9] != strings.Repeat("p", 40) || got[0] != strings.Repeat("p", 31) {
		t.Fatalf("capped history: %d entries, newest %d chars", len(got), len(got[len(got)-1]))
	}
	b, _ := os.ReadFile(filepath.Join(s.Home(), "history.jsonl"))
	if n := strings.Count(string(b), "\n"); n > 11 {
		t.Fatalf("history file holds %d lines: it is not rewritten at the cap", n)
	}
}

func TestCorruptHistoryReadsEmpty(t *testing.T) {
	s, _ := testStore(t)
	os.WriteFile(filepath.Join(s.Home(), "history.jsonl"), []byte("\x00\x01garbage\n{not json\n"), 0o600)
	if got := s.History(); len(got) != 0 {
		t.Fatalf("corrupt history read as %q", got)
	}
	if err := s.AddHistory("after", "/w"); err != nil {
		t.Fatal(err)
	}
	if got := s.History(); !slices.Equal(got, []string{"after"}) {
		t.Fatalf("history after corrupt file: %q", got)
	}
}

func TestConfigStrict(t *testing.T) {
	c, err := parseConfig([]byte(`{"snapshots":{"max_per_session":5,"required":["contracts/**"]},"storage":{"retention":{"trim":{"keep_last":20,"keep_within":"90d"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Snapshots.MaxPerSession != 5 || c.Snapshots.MaxFileBytes != 2<<20 || len(c.Snapshots.RequiredGlobs) != 1 || !c.Snapshots.Enabled {
		t.Fatalf("parsed %+v", c.Snapshots)
	}
	for in, key := range map[string]string{
		`{"snapshots":{"maxPerSession":5}}`:                         "snapshots.maxPerSession",
		`{"snapshots":{"max_per_session":0}}`:                       "snapshots.max_per_session",
		`{"snapshots":{"max_per_session":"5"}}`:                     "snapshots.max_per_session",
		`{"snapshots":{"enabled":"yes"}}`:                           "snapshots.enabled",
		`{"snapshots":{"required":[""]}}`:                           "snapshots.required",
		`{"snapshots":{"required":"x"}}`:                            "snapshots.required",
		`{"storage":{"retention":{"forget":{"keep_within":"1w"}}}}`: "storage.retention.forget.keep_within",
		`{"storage":{"retention":{"trim":{"keep_never":1}}}}`:       "storage.retention.trim.keep_never",
		`{"storage":{"snapshots":{"max_files":0}}}`:                 "storage.snapshots.max_files",
		`{"nope":1}`:         "nope",
		`[1,2]`:              "",
		`{"history":[]}`:     "history",
		`{"snapshots":{}} x`: "",
	} {
		_, err := parseConfig([]byte(in))
		var ce *configError
		if !errorsAs(err, &ce) || ce.Key != key {
			t.Errorf("%s: error %v, want one naming %q", in, err, key)
		}
	}
	// A camelCase key (as other tools write them) is told its snake_case
	// name; one with no such name is not.
	for in, hint := range map[string]string{
		`{"snapshots":{"maxPerSession":5}}`:        "keys are snake_case: max_per_session",
		`{"storage":{"snapshots":{"maxFiles":1}}}`: "keys are snake_case: max_files",
		`{"snapshots":{"maxNothing":5}}`:           "",
	} {
		_, err := parseConfig([]byte(in))
		if err == nil || (hint != "" && !strings.Contains(err.Error(), hint)) || (hint == "" && strings.Contains(err.Error(), "snake_case")) {
			t.Errorf("%s: error %v, want the hint %q", in, err, hint)
		}
	}
}
