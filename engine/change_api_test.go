package engine

import (
	"errors"
	"strings"
	"testing"
)

// TestChangeEndsWhateverFnDoes: Session.Change ends its change however its
// function returns: an error or a panic records nothing and passes on,
// and the session's next change, file tool, undo and redo run (a change
// left open would hold the undo stack's lock for ever). A change on a
// closed session is refused.
func TestChangeEndsWhateverFnDoes(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	e.put("a.txt", "a0")
	boom := errors.New("the tool failed")
	if _, err := s.Change(e.ctx, "apply_patch", []string{"a.txt"}, func(*Change) error {
		e.put("a.txt", "half")
		return boom
	}); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the function's error", err)
	}
	func() {
		defer func() {
			if r := recover(); r != "tool panicked" {
				t.Fatalf("recovered %v, want the function's panic", r)
			}
		}()
		s.Change(e.ctx, "apply_patch", []string{"a.txt"}, func(*Change) error { panic("tool panicked") })
	}()
	if k := e.kinds(s); k != "" {
		t.Fatalf("a failed change recorded %q", k)
	}
	e.put("a.txt", "a1")
	if _, err := s.ToolWrite(e.ctx, "a.txt", []byte("a2")); err != nil {
		t.Fatal(err)
	}
	a, err := s.Change(e.ctx, "apply_patch", []string{"a.txt"}, func(*Change) error {
		e.put("a.txt", "a3")
		return nil
	})
	if err != nil || a.Snapshot == nil {
		t.Fatalf("change after the failed ones: %+v, %v", a, err)
	}
	if _, err := s.Undo(e.ctx); err != nil {
		t.Fatal(err)
	}
	e.want("a.txt", "a2")
	if _, err := s.Redo(e.ctx); err != nil {
		t.Fatal(err)
	}
	e.want("a.txt", "a3")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	ran := false
	if _, err := s.Change(e.ctx, "apply_patch", []string{"a.txt"}, func(*Change) error { ran = true; return nil }); err == nil || !strings.Contains(err.Error(), "closed") || ran {
		t.Fatalf("change on a closed session: err = %v, ran = %v", err, ran)
	}
}
