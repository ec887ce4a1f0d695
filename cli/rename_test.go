package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// `cairn rename` keeps the name as given, on one line: the spaces typed
// between its words stay, a line break or tab becomes one space. The
// listing (`sessions`, `sessions --json`), the picker's rows and a
// reference by the exact title all see that name.
func TestRenameKeepsInnerSpaces(t *testing.T) {
	e := newRefEnv(t)
	code, _, errs := e.run(t, "", "rename", e.id, "  fix   the parser\n\tnow ")
	if code != 0 {
		t.Fatalf("rename: exit %d %q", code, errs)
	}
	const want = "fix   the parser now"
	var l []struct{ ID, Title string }
	_, out, _ := e.run(t, "", "--json", "sessions")
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatalf("sessions --json: %q %v", out, err)
	}
	found := false
	for _, s := range l {
		if s.ID == e.id {
			found = true
			if s.Title != want {
				t.Errorf("sessions --json: title %q, want %q", s.Title, want)
			}
		}
	}
	if !found {
		t.Fatalf("sessions --json lists no %s: %s", e.id, out)
	}
	if _, out, _ := e.run(t, "", "sessions"); !strings.Contains(out, want) {
		t.Errorf("sessions does not show %q: %q", want, out)
	}
	// The picker, as it lists without a terminal; an empty answer cancels.
	if _, out, errs := e.run(t, "\n", "resume"); !strings.Contains(out+errs, "1. "+want+" ") {
		t.Errorf("the picker does not show %q: %q %q", want, out, errs)
	}
	if code, out, errs := e.run(t, "", "--json", "show", want); code != 0 || !strings.Contains(out, e.id) {
		t.Errorf("show by the exact title: exit %d, %q %q", code, out, errs)
	}
}
