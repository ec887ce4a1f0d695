package convlog

import (
	"errors"
	"slices"
	"testing"

	"cairn/engine/internal/errs"
)

// A tool call selects itself, a prompt every item of its turn, "" the
// newest recorded call; an unknown item is not found, another type bad
// input.
func TestSelectChanges(t *testing.T) {
	st := NewState("s1", "/w")
	for _, it := range []*Item{{ID: "p1", Type: User}, {ID: "c1", Type: ToolCall, Parent: "p1"},
		{ID: "a1", Type: Assistant, Parent: "c1"}, {ID: "p2", Type: User, Parent: "a1"}, {ID: "c2", Type: ToolCall, Parent: "p2"}} {
		st.SetItem(it)
		st.Order = append(st.Order, it.ID)
	}
	if sel, err := st.SelectChanges(""); err != nil || sel.Item != "" || sel.Calls != nil {
		t.Fatalf(`SelectChanges("") = %+v, %v`, sel, err)
	}
	if sel, err := st.SelectChanges("c1"); err != nil || sel.Turn || !slices.Equal(sel.Calls, []string{"c1"}) {
		t.Fatalf("SelectChanges(c1) = %+v, %v", sel, err)
	}
	if sel, err := st.SelectChanges("p1"); err != nil || !sel.Turn || !slices.Equal(sel.Calls, []string{"p1", "c1", "a1"}) {
		t.Fatalf("SelectChanges(p1) = %+v, %v", sel, err)
	}
	if _, err := st.SelectChanges("nope"); !errors.Is(err, errs.ErrNotFound) {
		t.Fatalf("SelectChanges(nope) err = %v", err)
	}
	if _, err := st.SelectChanges("a1"); !errors.Is(err, errs.ErrBadInput) {
		t.Fatalf("SelectChanges(a1) err = %v", err)
	}
}
