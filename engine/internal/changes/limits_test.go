package changes

import (
	"strings"
	"testing"
	"time"

	"cairn/engine/internal/fstate"
	"cairn/internal/timefmt"
)

// TestNewChangeLines: a new change writes the discard of the undone
// branch, its own line and the drop of the oldest snapshots over the
// limits, in that order, and leaves the stack those lines fold to.
func TestNewChangeLines(t *testing.T) {
	now := timefmt.Mk(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	files := func(n int) []FileChange {
		oid := strings.Repeat("a", 64) // a stored pre-image of n bytes
		return []FileChange{{Path: "a", Before: &fstate.State{OID: oid, Size: int64(n), Mode: fstate.ModeFile}}}
	}
	var st Stack
	for range 3 {
		rec, _, live := st.NewChange(now, "write", "", ItemRef{}, files(10), Limits{MaxPerSession: 10, MaxBytes: 1 << 20})
		st.Committed(rec, live)
	}
	st.list[2].Applied = false // the newest undone
	rec, lines, live := st.NewChange(now, "edit", "i-0123456789abcdef", NewestItem("i-0123456789abcdef"), files(10), Limits{MaxPerSession: 2, MaxBytes: 1 << 20})
	if len(lines) != 3 {
		t.Fatalf("lines %+v", lines)
	}
	discard, ok1 := lines[0].(ListLine)
	change, ok2 := lines[1].(ChangeLine)
	drop, ok3 := lines[2].(ListLine)
	if !ok1 || !ok2 || !ok3 || discard.Kind != KindDiscard || len(discard.IDs) != 1 || change.ID != rec.ID ||
		change.Call != "i-0123456789abcdef" || rec.Seq != 4 || drop.Kind != KindDrop || drop.Why != "max_per_session" || len(drop.IDs) != 1 {
		t.Fatalf("lines %+v", lines)
	}
	if len(live) != 2 || live[1].Rec.ID != rec.ID {
		t.Fatalf("live %+v", live)
	}
	// Bytes: the newest is always kept, even alone over the limit.
	_, lines, live = st.NewChange(now, "edit", "", ItemRef{}, files(100), Limits{MaxPerSession: 10, MaxBytes: 50})
	if len(live) != 1 || lines[len(lines)-1].(ListLine).Why != "max_bytes_per_session" {
		t.Fatalf("over bytes: lines %+v live %d", lines, len(live))
	}
}
