package engine

import (
	"strings"
	"testing"
)

// TestRetentionConfig: storage.retention parses into policies, with the
// defaults of an empty section, and refuses what it cannot read by key.
func TestRetentionConfig(t *testing.T) {
	d := DefaultConfig().Storage
	if !d.Trim.Empty() || !d.Forget.Empty() || d.GroupBy != "directory" || d.SweepIntervalHours != 24 {
		t.Fatalf("defaults %+v", d)
	}
	c := must(parseConfig([]byte(`{"storage":{"retention":{"group_by":"none","sweep_interval_hours":0,
		"trim":{"keep_last":20,"keep_within":"90d"},"forget":{"keep_within":"2y","keep_monthly":-1}}}}`)))(t)
	if c.Storage.GroupBy != "none" || c.Storage.SweepIntervalHours != 0 ||
		c.Storage.Trim.String() != "keep_last 20, keep_within 90d" || c.Storage.Forget.String() != "keep_monthly -1, keep_within 2y" {
		t.Fatalf("parsed %+v", c.Storage)
	}
	for in, want := range map[string]string{
		`{"storage":{"retention":{"forget":{"keep_within":"1w"}}}}`:      "write 7d",
		`{"storage":{"retention":{"trim":{"keep_last":"5"}}}}`:           "a count",
		`{"storage":{"retention":{"trim":{"keep_last":-2}}}}`:            "a count",
		`{"storage":{"retention":{"trim":{"keep_within":5}}}}`:           "a duration",
		`{"storage":{"retention":{"group_by":"host"}}}`:                  `"directory" or "none"`,
		`{"storage":{"retention":{"sweep_interval_hours":-1}}}`:          "between",
		`{"storage":{"retention":{"trim":{"keep_tags":[["a"]]}}}}`:       "unknown key",
		`{"storage":{"retention":{"trim":{"keep_within":"90d"},"x":1}}}`: "unknown key",
	} {
		_, err := parseConfig([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", in, err, want)
		}
	}
}
