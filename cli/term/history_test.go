package term

import (
	"slices"
	"testing"
)

// step is one move of a history walk and what it must show.
type step struct {
	op   string // "up", "down", "add:TEXT", "leave"
	cur  string // the line as it stands, for "up"
	want string // the line shown afterwards
	ok   bool   // whether the move changed the line
}

func runWalk(t *testing.T, h *historyWalk, steps []step) {
	t.Helper()
	for i, s := range steps {
		var got string
		var ok bool
		switch {
		case s.op == "up":
			got, ok = h.up(s.cur)
		case s.op == "down":
			got, ok = h.down()
		case s.op == "leave":
			h.leave()
			continue
		case len(s.op) > 4 && s.op[:4] == "add:":
			h.add(s.op[4:])
			continue
		default:
			t.Fatalf("bad op %q", s.op)
		}
		if ok != s.ok || (ok && got != s.want) {
			t.Fatalf("step %d %s: got %q, %v; want %q, %v", i, s.op, got, ok, s.want, s.ok)
		}
	}
}

func TestHistoryUpStopsAtOldest(t *testing.T) {
	h := newHistoryWalk([]string{"one", "two", "three"})
	runWalk(t, h, []step{
		{op: "up", cur: "draft", want: "three", ok: true},
		{op: "up", want: "two", ok: true},
		{op: "up", want: "one", ok: true},
		{op: "up", ok: false},
		{op: "up", ok: false},
		{op: "down", want: "two", ok: true},
	})
}

func TestHistoryDownRestoresDraft(t *testing.T) {
	h := newHistoryWalk([]string{"one", "two"})
	runWalk(t, h, []step{
		{op: "up", cur: "half-writ", want: "two", ok: true},
		{op: "up", cur: "two", want: "one", ok: true},
		{op: "down", want: "two", ok: true},
		{op: "down", want: "half-writ", ok: true},
		// Out of the walk: Down does nothing, Up starts again from the newest.
		{op: "down", ok: false},
		{op: "up", cur: "half-writ", want: "two", ok: true},
	})
}

func TestHistoryDraftIsTakenOnFirstUpOnly(t *testing.T) {
	h := newHistoryWalk([]string{"a", "b"})
	runWalk(t, h, []step{
		{op: "up", cur: "mine", want: "b", ok: true},
		// The line passed on later Ups (an entry, maybe edited) is not the draft.
		{op: "up", cur: "b edited", want: "a", ok: true},
		{op: "down", want: "b", ok: true},
		{op: "down", want: "mine", ok: true},
	})
}

func TestHistoryDownOutsideWalkDoesNothing(t *testing.T) {
	h := newHistoryWalk([]string{"a"})
	runWalk(t, h, []step{{op: "down", ok: false}})
	if h.browsing {
		t.Fatal("down started a walk")
	}
}

func TestHistoryEmpty(t *testing.T) {
	h := newHistoryWalk(nil)
	runWalk(t, h, []step{{op: "up", cur: "x", ok: false}, {op: "down", ok: false}})
	if h.browsing {
		t.Fatal("up on empty history started a walk")
	}
}

func TestHistoryLeaveEndsWalk(t *testing.T) {
	h := newHistoryWalk([]string{"a", "b", "c"})
	runWalk(t, h, []step{
		{op: "up", cur: "draft", want: "c", ok: true},
		{op: "up", want: "b", ok: true},
		{op: "leave"},
		{op: "down", ok: false},
		// A new walk starts at the newest entry with a new draft.
		{op: "up", cur: "new", want: "c", ok: true},
		{op: "down", want: "new", ok: true},
	})
}

func TestHistoryAddWhileBrowsingKeepsView(t *testing.T) {
	h := newHistoryWalk([]string{"a", "b", "c"})
	runWalk(t, h, []step{
		{op: "up", cur: "draft", want: "c", ok: true},
		{op: "up", want: "b", ok: true},
		{op: "add:from elsewhere"},
		// Still on "b": Up goes to "a", Down goes to "c", then the new entry, then the draft.
		{op: "up", want: "a", ok: true},
		{op: "down", want: "b", ok: true},
		{op: "down", want: "c", ok: true},
		{op: "down", want: "from elsewhere", ok: true},
		{op: "down", want: "draft", ok: true},
	})
}

func TestHistoryAddCollapsesAndSkipsEmpty(t *testing.T) {
	h := newHistoryWalk([]string{"a", "a", "", "b", "a", "a"})
	h.add("a")
	h.add("")
	h.add("c")
	h.add("c")
	want := []string{"a", "b", "a", "c"}
	if got := h.list(); !slices.Equal(got, want) {
		t.Fatalf("entries %q, want %q", got, want)
	}
}
