package listing

import (
	"errors"
	"testing"
	"time"

	"cairn/engine/internal/errs"
	"cairn/index"
)

// Match finds a session by its id in any case, by a unique id prefix or by
// its exact title; none is ErrNotFound and more than one ErrAmbiguous.
func TestMatch(t *testing.T) {
	ents := []index.Entry{{ID: "s-aaa1", Title: "fix the bug"}, {ID: "s-aab2"}, {ID: "s-b"}}
	for ref, want := range map[string]string{"S-AAA1": "s-aaa1", "s-aab": "s-aab2", "fix the bug": "s-aaa1", "s-B": "s-b"} {
		if got, err := Match(ents, ref, "/w"); err != nil || got != want {
			t.Errorf("Match(%q) = %q, %v; want %q", ref, got, err, want)
		}
	}
	if _, err := Match(ents, "s-aa", "/w"); !errors.Is(err, errs.ErrAmbiguous) {
		t.Errorf("Match(s-aa) err = %v, want ErrAmbiguous", err)
	}
	if _, err := Match(ents, "s-c", "/w"); !errors.Is(err, errs.ErrNotFound) {
		t.Errorf("Match(s-c) err = %v, want ErrNotFound", err)
	}
}

// Sort puts the newest first, ties by id, and what is dated after the
// limit last.
func TestSort(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
	l := []index.Entry{
		{ID: "future", UpdatedAt: t0.Add(48 * time.Hour)},
		{ID: "old", UpdatedAt: t0},
		{ID: "b", UpdatedAt: t0.Add(time.Hour)},
		{ID: "a", UpdatedAt: t0.Add(time.Hour)},
	}
	Sort(l, t0.Add(24*time.Hour), func(e *index.Entry) *index.Entry { return e })
	var got string
	for _, e := range l {
		got += e.ID + " "
	}
	if got != "a b old future " {
		t.Fatalf("Sort = %q", got)
	}
}
