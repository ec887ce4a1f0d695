package term

import (
	"strings"
	"testing"
)

// A session of another checkout is marked, escaped, in both pickers; this
// directory's are not.
func TestRowCheckoutMark(t *testing.T) {
	r := Row{ID: "0123456789abcdef", Title: "t", Checkout: "wt\x1b[2J"}
	picked := func(r Row, width int) string {
		m := newPickModel(Listing{Rows: []Row{r}}, width, 10)
		return strings.Join(m.frame(), "\n")
	}
	for _, s := range []string{picked(r, 0), picked(r, 200), formatRow(r)} {
		if !strings.Contains(s, `checkout wt\x1b[2J`) {
			t.Errorf("no escaped checkout mark in %q", s)
		}
	}
	r.Checkout = ""
	if s := picked(r, 0) + formatRow(r); strings.Contains(s, "checkout") {
		t.Errorf("this directory's row is marked: %q", s)
	}
}
