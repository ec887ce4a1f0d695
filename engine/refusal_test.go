package engine

import (
	"errors"
	"io/fs"
	"testing"
)

// TestRefusalWhy: a refusal is ErrRefused for errors.Is, keeps the error
// its reason wraps, and says its reason apart from the word, so no caller
// takes its text apart.
func TestRefusalWhy(t *testing.T) {
	err := refusedf("cannot do %s: %w", "x", fs.ErrPermission)
	var r Refusal
	if !errors.As(err, &r) || !errors.Is(err, ErrRefused) || !errors.Is(err, fs.ErrPermission) {
		t.Fatalf("%v: not a refusal wrapping its cause", err)
	}
	if r.Why() != "cannot do x: permission denied" || err.Error() != "engine: refused: cannot do x: permission denied" {
		t.Fatalf("Why %q, Error %q", r.Why(), err.Error())
	}
	for _, e := range []Refusal{
		&RestoreError{Action: "undo", Snapshot: "s", Tool: "write"},
		&RequiredError{Tool: "write"},
		&PatchError{Path: "a", Reason: "no"},
		&RevertConflictError{Action: "revert", Files: &FileRevert{}},
	} {
		if !errors.Is(e, ErrRefused) || e.Error() != "engine: refused: "+e.Why() {
			t.Errorf("%T: Error %q, Why %q", e, e.Error(), e.Why())
		}
	}
}
