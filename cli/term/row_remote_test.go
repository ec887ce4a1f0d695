package term

import (
	"strings"
	"testing"
)

// A session on a remote workspace shows its host and path, escaped, in
// both pickers; a local one shows none.
func TestRowRemoteMark(t *testing.T) {
	r := Row{ID: "0123456789abcdef", Title: "t", Remote: "devbox:/srv/p\x1b[2J"}
	picked := func(r Row, width int) string {
		m := newPickModel(Listing{Rows: []Row{r}}, width, 10)
		return strings.Join(m.frame(), "\n")
	}
	for _, s := range []string{picked(r, 0), picked(r, 200), formatRow(r)} {
		if !strings.Contains(s, `on devbox:/srv/p\x1b[2J`) {
			t.Errorf("no escaped remote mark in %q", s)
		}
	}
	r.Remote = ""
	if s := picked(r, 0) + formatRow(r); strings.Contains(s, "devbox") {
		t.Errorf("a local row is marked: %q", s)
	}
}
