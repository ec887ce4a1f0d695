package term

import (
	"strings"
	"testing"
)

// A session of another checkout is marked, escaped, in both pickers; this
// directory's are not.
func TestRowCheckoutMark(t *testing.T) {
	r := Row{ID: "0123456789abcdef", Title: "t", Checkout: "wt\x1b[2J"}
	for _, s := range []string{pickRow(r, 0), pickRow(r, 200), formatRow(r)} {
		if !strings.Contains(s, `[checkout wt\x1b[2J]`) {
			t.Errorf("no escaped checkout mark in %q", s)
		}
	}
	r.Checkout = ""
	if s := pickRow(r, 0) + formatRow(r); strings.Contains(s, "checkout") {
		t.Errorf("this directory's row is marked: %q", s)
	}
}
