package changes

import (
	"encoding/json"
	"testing"
	"time"

	"cairn/engine/internal/fstate"
	"cairn/internal/timefmt"
)

func tlState(c string) *fstate.State {
	f := fstate.Content([]byte(c), fstate.ModeFile)
	if c != "" {
		f.Data = []byte(c)
	}
	return f
}

func tlFold(t *testing.T, lines ...any) *Timeline {
	t.Helper()
	tl := &Timeline{}
	for _, l := range lines {
		b, _ := json.Marshal(l)
		if err := foldBytes(tl, b); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
	}
	return tl
}

func tlChange(id, call, path string, before, after *fstate.State) ChangeLine {
	return ChangeLine{V: 1, Kind: KindChange, ID: id, Seq: 1, At: timefmt.Mk(time.Now()), Tool: "write", Call: call, Scope: "paths",
		Files: []FileChange{{Path: path, Before: before, After: fstate.Content(after.Data, after.Mode)}}}
}

// TestTimelineTargets: a revert's target is what the file held before the
// first step after the cut, expected as the newest step left it; an undo
// in between is one more move, and a file the steps leave as it was is no
// target; a hand edit between two records is interleaved; a skipped
// pre-image is unrecorded.
func TestTimelineTargets(t *testing.T) {
	a0, a1, a2, b0, b1 := tlState("a0"), tlState("a1"), tlState("a2"), tlState("b0"), tlState("b1")
	tl := tlFold(t,
		tlChange("m1-00000001", "p1", "a", a0, a1),
		tlChange("m2-00000002", "p2", "a", a1, a2),
		UndoLine{V: 1, Kind: KindUndo, ID: "m2-00000002", Files: []KeptFile{{Path: "a", Kept: a2}}},
		tlChange("m3-00000003", "p2", "b", b0, b1),
		tlChange("m4-00000004", "p2", "b", tlState("mine"), b0),
	)
	b := Boundary{Record: func(call string, _ ItemRef, _ timefmt.Time) bool { return call == "p2" }, Event: func(ItemRef, timefmt.Time) bool { return true }}
	cut := tl.Cut(b)
	if cut != 1 {
		t.Fatalf("cut %d", cut)
	}
	ts, cs := tl.Targets(cut, nil)
	if len(ts) != 0 {
		t.Fatalf("targets %+v: a is changed and undone after the cut", ts)
	}
	if len(cs) != 1 || cs[0].Kind != ConflictInterleaved || cs[0].Path != "b" {
		t.Fatalf("conflicts %+v", cs)
	}
	if ts, _ := tl.Targets(0, nil); len(ts) != 1 || ts[0].Path != "a" || !fstate.Same(ts[0].Put, a0) || !fstate.Same(ts[0].Expect, a1) {
		t.Fatalf("targets from the start %+v", ts)
	}
	skipped := tlFold(t, tlChange("m1-00000001", "p1", "c", &fstate.State{Skipped: fstate.SkipTooLarge, Size: 1 << 30}, a1))
	if _, cs := skipped.Targets(0, nil); len(cs) != 1 || cs[0].Kind != ConflictUnrecorded {
		t.Fatalf("skipped pre-image: %+v", cs)
	}
}

// TestTimelineRevertParts: a revert whose parts are not all read never
// started; once complete it stacks, and new work ends the stack; an
// unrevert must name the stack.
func TestTimelineRevertParts(t *testing.T) {
	a0, a1 := tlState("a0"), tlState("a1")
	part := func(k int) RevertLine {
		return RevertLine{V: 1, Kind: KindRevert, ID: "r1-00000001", Part: k, Parts: 2,
			Files: []RevertFile{{Path: []string{"", "a", "b"}[k], Kept: a1, Put: HashOnly(a0)}}}
	}
	tl := tlFold(t, tlChange("m1-00000001", "p1", "a", a0, a1), part(1))
	if tl.Pending() || len(tl.Steps) != 1 {
		t.Fatal("a revert with a part missing was taken")
	}
	b, _ := json.Marshal(part(2))
	if err := foldBytes(tl, b); err != nil || !tl.Pending() || !tl.Newest().Unfinished() {
		t.Fatalf("complete revert: %v pending %v", err, tl.Pending())
	}
	bad, _ := json.Marshal(UnrevertLine{V: 1, Kind: KindUnrevert, ID: "u1-00000001", IDs: []string{"r9-00000009"}})
	if foldBytes(tl, bad) == nil {
		t.Fatal("an unrevert of another stack was folded")
	}
	done, _ := json.Marshal(DoneLine{V: 1, Kind: KindReverted, ID: "r1-00000001", Left: []string{"b"}})
	if err := foldBytes(tl, done); err != nil || !tl.Newest().Unfinished() || len(tl.Newest().Step.Moves) != 1 {
		t.Fatalf("reverted with a file left: %v", err)
	}
	if m := UnrevertMoves(tl.Stack); len(m) != 1 || m[0].Path != "a" || !fstate.Same(m[0].To, a1) {
		t.Fatalf("unrevert moves %+v", m)
	}
	nw, _ := json.Marshal(tlChange("m2-00000002", "p2", "c", nil, a1))
	foldBytes(tl, nw)
	if tl.Pending() {
		t.Fatal("new work did not end the stack")
	}
}

// TestRevertLinesSplit: the files are split so that no line holds more
// than the budget of inline content, one file a line at least.
func TestRevertLinesSplit(t *testing.T) {
	var files []RevertFile
	for range 10 {
		files = append(files, RevertFile{Path: "f", Kept: tlState(string(make([]byte, 1000)))})
	}
	ls := RevertLines("r1-00000001", timefmt.Time{}, "i", NewestItem("i"), files, 3000)
	n := 0
	for _, l := range ls {
		if l.Parts != len(ls) || len(l.Files) == 0 {
			t.Fatalf("line %+v", l.Part)
		}
		n += len(l.Files)
	}
	if n != 10 || len(ls) < 4 {
		t.Fatalf("%d lines, %d files", len(ls), n)
	}
}
