package tasks

import (
	"errors"
	"testing"

	"cairn/engine/internal/errs"
)

// Only an agent's task that ended (settled, cancelled, blocked) may be
// continued; a missing task is ErrNotFound, the others are refused.
func TestContinuable(t *testing.T) {
	recs := []*Record{
		{ID: "done", Type: TypeAgent, State: Settled},
		{ID: "job", Type: TypeShell, State: Settled},
		{ID: "live", Type: TypeAgent, State: Running},
		{ID: "cut", Type: TypeAgent, State: Interrupted},
	}
	if r, err := Continuable(recs, "done", "s"); err != nil || r != recs[0] {
		t.Fatalf("Continuable(done) = %v, %v", r, err)
	}
	for _, id := range []string{"job", "live", "cut"} {
		if _, err := Continuable(recs, id, "s"); !errors.Is(err, errs.ErrRefused) {
			t.Errorf("Continuable(%s) err = %v, want a refusal", id, err)
		}
	}
	if _, err := Continuable(recs, "none", "s"); !errors.Is(err, errs.ErrNotFound) {
		t.Errorf("Continuable(none) err = %v, want ErrNotFound", err)
	}
}
