package retention

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]Duration{
		"90d": {Days: 90}, "2y5m7d3h": {2, 5, 7, 3}, "1y1d1m": {1, 1, 1, 0}, "13d23h": {Days: 13, Hours: 23}, "0d": {},
	} {
		got, err := ParseDuration(in)
		if err != nil || got != want {
			t.Errorf("%q: %+v %v, want %+v", in, got, err, want)
		}
	}
	for in, msg := range map[string]string{
		"2w": "write 7d", "1y2w": "write 7d", "": "empty", "5": "no unit", "d": "no number", "3x": "not a unit", "-1d": "not a unit",
	} {
		if _, err := ParseDuration(in); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: %v, want an error saying %q", in, err, msg)
		}
	}
	if s := (Duration{1, 2, 3, 3}).String(); s != "1y2m3d3h" {
		t.Errorf("String %q", s)
	}
}

func TestSet(t *testing.T) {
	var p Policy
	for k, v := range map[string]string{"keep_last": "20", "keep_within": "90d", "keep_within_daily": "7d", "keep_yearly": "-1"} {
		if err := p.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	if p.String() != "keep_last 20, keep_yearly -1, keep_within 90d, keep_within_daily 7d" {
		t.Errorf("String %q", p)
	}
	for _, bad := range [][2]string{{"keep_last", "x"}, {"keep_last", "-2"}, {"keep_within", "2w"}, {"keep_tags", "a"}} {
		if err := p.Set(bad[0], bad[1]); err == nil {
			t.Errorf("Set(%q, %q) accepted", bad[0], bad[1])
		}
	}
}

// TestLocalBoundaries: periods are cut in the given location, so two
// sessions on one local day share a daily period even when UTC splits
// them, and weeks start on Monday.
func TestLocalBoundaries(t *testing.T) {
	tokyo := time.FixedZone("JST", 9*3600)
	// 2026-03-02 is a Monday. 23:30 UTC on Sunday 1 March is already
	// Monday 08:30 in Tokyo.
	c := []Candidate{
		{ID: "mon-late", Activity: time.Date(2026, 3, 2, 14, 0, 0, 0, time.UTC)},  // Mon 23:00 JST
		{ID: "sun-utc", Activity: time.Date(2026, 3, 1, 23, 30, 0, 0, time.UTC)},  // Mon 08:30 JST
		{ID: "sun-early", Activity: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}, // Sun 19:00 JST
		// the oldest is always kept by a rule with room left (restic's
		// oldest-snapshot rule), so it is one of its own period
		{ID: "older", Activity: time.Date(2026, 2, 10, 10, 0, 0, 0, time.UTC)},
	}
	now := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)
	kept := func(p Policy, loc *time.Location) []string {
		var ids []string
		for _, d := range Apply(c, p, now, loc) {
			if d.Keep {
				ids = append(ids, d.ID)
			}
		}
		return ids
	}
	if got := kept(Policy{Daily: 5}, tokyo); !slices.Equal(got, []string{"mon-late", "sun-early", "older"}) {
		t.Errorf("daily in Tokyo: %v", got)
	}
	if got := kept(Policy{Daily: 5}, time.UTC); !slices.Equal(got, []string{"mon-late", "sun-utc", "older"}) {
		t.Errorf("daily in UTC: %v", got)
	}
	// ISO weeks from Monday: in Tokyo the first two are week 10, the
	// third week 9; in UTC only the first is week 10.
	if got := kept(Policy{Weekly: 5}, tokyo); !slices.Equal(got, []string{"mon-late", "sun-early", "older"}) {
		t.Errorf("weekly in Tokyo: %v", got)
	}
	if got := kept(Policy{Weekly: 5}, time.UTC); !slices.Equal(got, []string{"mon-late", "sun-utc", "older"}) {
		t.Errorf("weekly in UTC: %v", got)
	}
}

// TestDecide: the always-kept flags keep a session the rules drop, and
// come first in its reasons; an empty policy removes nothing.
func TestDecide(t *testing.T) {
	now := time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC)
	day := func(d int) time.Time { return time.Date(2026, 1, d, 12, 0, 0, 0, time.UTC) }
	c := []Candidate{
		{ID: "new", Activity: day(9)},
		{ID: "pinned", Activity: day(1), Flags: Pinned},
		{ID: "open", Activity: day(2), Flags: Open},
		{ID: "revert", Activity: day(3), Flags: PendingRevert},
		{ID: "future", Activity: day(20)},
		{ID: "old", Activity: day(4)},
	}
	got := map[string]Decision{}
	for _, d := range Decide(c, Policy{Last: 1}, now, time.UTC) {
		got[d.ID] = d
	}
	want := map[string][]string{
		"future": {"future-dated", "last"}, "new": nil, "pinned": {"pinned"}, "open": {"open"},
		"revert": {"pending revert"}, "old": nil,
	}
	for id, why := range want {
		d := got[id]
		if d.Keep != (why != nil) || !slices.Equal(d.Reasons, why) {
			t.Errorf("%s: keep %v %q, want %q", id, d.Keep, d.Reasons, why)
		}
	}
	for _, d := range Decide(c, Policy{}, now, time.UTC) {
		if !d.Keep || !slices.Contains(d.Reasons, "no policy") {
			t.Errorf("empty policy: %s %v %q", d.ID, d.Keep, d.Reasons)
		}
	}
	// keep_within counts back from the newest activity that is not in the
	// future: day 9, so 2d keeps day 9 only (day 20 is future-dated).
	for _, d := range Decide(c, Policy{Within: Duration{Days: 2}}, now, time.UTC) {
		if d.ID == "new" && !slices.Equal(d.Reasons, []string{"within 2d"}) || d.ID == "old" && d.Keep {
			t.Errorf("within: %s %v %q", d.ID, d.Keep, d.Reasons)
		}
	}
}
