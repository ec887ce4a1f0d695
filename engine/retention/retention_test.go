package retention

import (
	"slices"
	"testing"
	"time"
)

// TestAlways: a candidate with any flag is always kept, each flag named;
// one with none is left to the policy.
func TestAlways(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		flags Flags
		keep  bool
		why   []string
	}{
		{0, false, nil},
		{Pinned, true, []string{"pinned"}},
		{Open | FutureDated, true, []string{"open", "future-dated"}},
		{Pinned | Open | PendingRevert | FutureDated, true, []string{"pinned", "open", "pending revert", "future-dated"}},
	} {
		keep, why := Candidate{ID: "s", Activity: now, Flags: tc.flags}.Always()
		if keep != tc.keep || !slices.Equal(why, tc.why) {
			t.Errorf("flags %b: keep %v %v, want %v %v", tc.flags, keep, why, tc.keep, tc.why)
		}
	}
}
