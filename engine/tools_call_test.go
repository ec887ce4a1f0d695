package engine

import (
	"errors"
	"testing"

	"cairn/engine/internal/changes"
)

// TestToolLineNamesItsCall: every change line names the item it belongs
// to: the tool_call item the caller gives, else the user prompt that began
// the turn; a call that is not a tool_call or user item of the session is
// refused and changes nothing.
func TestToolLineNamesItsCall(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	e.put("a.txt", "one")

	// No prompt yet: no call.
	if _, err := s.ToolWrite(e.ctx, "a.txt", []byte("two")); err != nil {
		t.Fatal(err)
	}
	p1 := must(s.Append(e.ctx, Item{Type: User, Text: "first prompt"}))(t)
	if _, err := s.ToolEdit(e.ctx, "a.txt", "two", "three"); err != nil {
		t.Fatal(err)
	}
	call := must(s.Append(e.ctx, Item{Type: ToolCall, Tool: "edit", Text: "{}"}))(t)
	asst := must(s.Append(e.ctx, Item{Type: Assistant, Text: "done"}))(t)
	if _, err := s.ToolEdit(e.ctx, "a.txt", "three", "four", ToolOptions{Call: call.ID}); err != nil {
		t.Fatal(err)
	}
	// The prompt that began the turn, though the head is an assistant item.
	if _, err := s.ToolRm(e.ctx, "a.txt"); err != nil {
		t.Fatal(err)
	}
	p2 := must(s.Append(e.ctx, Item{Type: User, Text: "second prompt"}))(t)
	if _, err := s.Change(e.ctx, "apply_patch", []string{"b.txt"}, func(*Change) error {
		e.put("b.txt", "b")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Change(e.ctx, "apply_patch", []string{"b.txt"}, func(c *Change) error {
		e.put("b.txt", "bb")
		return c.SetCall(call.ID)
	}); err != nil {
		t.Fatal(err)
	}

	var calls []any
	for _, l := range e.lines(s) {
		if l["kind"] == changes.KindChange {
			calls = append(calls, l["call"])
		}
	}
	want := []any{nil, p1.ID, call.ID, p1.ID, p2.ID, call.ID}
	if len(calls) != len(want) {
		t.Fatalf("calls %v, want %v", calls, want)
	}
	for i := range want {
		if calls[i] != want[i] {
			t.Fatalf("change %d names call %v, want %v (all: %v)", i, calls[i], want[i], calls)
		}
	}

	// Bad calls: refused, nothing changed, no line.
	before := len(e.lines(s))
	e.put("c.txt", "c")
	if _, err := s.ToolWrite(e.ctx, "c.txt", []byte("x"), ToolOptions{Call: "i-0000000000000000"}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown call: err = %v, want ErrNotFound", err)
	}
	if _, err := s.ToolWrite(e.ctx, "c.txt", []byte("x"), ToolOptions{Call: asst.ID}); !errors.Is(err, ErrBadInput) {
		t.Fatalf("assistant call: err = %v, want ErrBadInput", err)
	}
	if _, err := s.ToolRm(e.ctx, "c.txt", ToolOptions{}, ToolOptions{}); !errors.Is(err, ErrBadInput) {
		t.Fatalf("two options: err = %v, want ErrBadInput", err)
	}
	if _, err := s.Change(e.ctx, "apply_patch", []string{"c.txt"}, func(c *Change) error {
		return c.SetCall(asst.ID)
	}); !errors.Is(err, ErrBadInput) {
		t.Fatalf("SetCall(assistant): err = %v, want ErrBadInput", err)
	}
	e.want("c.txt", "c")
	if n := len(e.lines(s)); n != before {
		t.Fatalf("refused calls wrote %d lines", n-before)
	}

	// Read back after a reopen: the stack folds as before.
	r := e.reopen(s)
	l := must(r.Snapshots(e.ctx))(t)
	if len(l.Snapshots) != 6 || len(l.Unread) != 0 {
		t.Fatalf("after reopen: %d snapshots, %d unread; want 6, 0", len(l.Snapshots), len(l.Unread))
	}
}

// TestChangeLineCallRead: a change line naming a call of a bad form is
// skipped like any bad line; old lines without one read as before.
func TestChangeLineCallRead(t *testing.T) {
	for _, tc := range []struct {
		call string
		ok   bool
	}{{"", true}, {"i-0123456789abcdef", true}, {"bad call\n", false}} {
		l := changes.Line{ID: "m2x1-9f3a2c7e", Tool: "edit", Call: tc.call,
			Files: []changes.RawFile{{Path: "a.txt"}}}
		if err := changes.CheckChange(&l); (err == nil) != tc.ok {
			t.Fatalf("call %q: err = %v, want ok=%v", tc.call, err, tc.ok)
		}
	}
}
