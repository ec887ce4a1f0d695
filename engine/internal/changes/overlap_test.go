package changes

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"cairn/engine/internal/fstate"
	"cairn/internal/timefmt"
)

func tlRecord(id, call string, files ...FileChange) ChangeLine {
	return ChangeLine{V: 1, Kind: KindRecord, ID: id, Seq: 1, At: timefmt.Mk(time.Now()), Tool: "bash", Call: call, Scope: "workspace", Files: files}
}

func fc(path string, before, after *fstate.State) FileChange {
	var a *fstate.State
	if after != nil {
		a = fstate.Content(after.Data, after.Mode)
	}
	return FileChange{Path: path, Before: before, After: a}
}

// TestTimelineOverlap: two records that each hold the other's change do
// not meet, and are interleaved; with their overlap line, file revert
// reads the unit's net change instead, reverted whole. A cut among the
// unit's calls, and an undo among their lines, are refused for the
// unit's files.
func TestTimelineOverlap(t *testing.T) {
	a0, a1, b0, b1 := tlState("a0"), tlState("a1"), tlState("b0"), tlState("b1")
	ra := tlRecord("m1-0000000a", "p2", fc("a", a0, a1), fc("b", b0, b1))
	rb := tlRecord("m2-0000000b", "p2", fc("a", a0, a1), fc("b", b0, b1))
	ov := OverlapLine{V: 1, Kind: KindOverlap, ID: "m3-000000cc", Members: []OverlapMember{{ID: ra.ID, Call: "p2"}, {ID: rb.ID, Call: "p2"}},
		Files: []FileChange{fc("a", a0, a1), fc("b", b0, b1)}}
	at := func(call string) Boundary {
		return Boundary{Record: func(c string, _ ItemRef, _ timefmt.Time) bool { return c >= call }, Event: func(ItemRef, timefmt.Time) bool { return true }}
	}

	without := tlFold(t, ra, rb)
	if _, cs := without.Targets(without.Cut(at("p2")), nil); len(cs) != 2 || cs[0].Kind != ConflictInterleaved {
		t.Fatalf("without the overlap line: %+v", cs)
	}

	tl := tlFold(t, ra, rb, ov)
	ts, cs := tl.Targets(tl.Cut(at("p2")), nil)
	if len(cs) != 0 || len(ts) != 2 || !fstate.Same(ts[0].Put, a0) || !fstate.Same(ts[0].Expect, a1) || !fstate.Same(ts[1].Put, b0) {
		t.Fatalf("with it: targets %+v conflicts %+v", ts, cs)
	}
	if ts, cs := tl.Targets(tl.Cut(at("p3")), nil); len(ts)+len(cs) != 0 {
		t.Fatalf("after the unit: %+v %+v", ts, cs)
	}

	// Calls of two turns ran at the same time: a revert to the second
	// turn cannot say what the files held when it began.
	rc := tlRecord("m4-0000000c", "p3", fc("a", a0, a1))
	split := OverlapLine{V: 1, Kind: KindOverlap, ID: "m5-000000dd", Members: []OverlapMember{{ID: ra.ID, Call: "p2"}, {ID: rc.ID, Call: "p3"}},
		Files: []FileChange{fc("a", a0, a1), fc("b", b0, b1)}}
	tl = tlFold(t, ra, rc, split)
	ts, cs = tl.Targets(tl.Cut(at("p3")), nil)
	if len(ts) != 0 || len(cs) != 2 || cs[0].Kind != ConflictInterleaved || cs[0].Path != "a" || cs[1].Path != "b" {
		t.Fatalf("a unit split by the cut: %+v %+v", ts, cs)
	}
	if ts, cs := tl.Targets(tl.Cut(at("p2")), nil); len(cs) != 0 || len(ts) != 2 {
		t.Fatalf("before the whole unit: %+v %+v", ts, cs)
	}

	// The same, with the second turn's call ending first: the boundary
	// places the unit's calls on both sides.
	tl = tlFold(t, rc, ra, OverlapLine{V: 1, Kind: KindOverlap, ID: "m5-000000dd", Members: split.Members, Files: split.Files})
	if ts, cs := tl.Targets(tl.Cut(at("p3")), nil); len(ts) != 0 || len(cs) != 2 {
		t.Fatalf("a unit split by the boundary: %+v %+v", ts, cs)
	}

	// The same, with calls whose items are not in the conversation (an
	// agent's, before its transcript is read): each member is placed by
	// the item it names where it began, not by the overlap line's.
	byItem := func(item string) Boundary {
		return Boundary{Record: func(_ string, it ItemRef, _ timefmt.Time) bool { return it.ID >= item }, Event: func(ItemRef, timefmt.Time) bool { return true }}
	}
	xa, xc := ra, rc
	xa.Call, xa.Item, xc.Call, xc.Item = "call-a", NewestItem("p2"), "call-c", NewestItem("p3")
	unknown := OverlapLine{V: 1, Kind: KindOverlap, ID: "m5-000000dd", Item: NewestItem("p3"),
		Members: []OverlapMember{{ID: xa.ID, Call: "call-a", Item: NewestItem("p2")}, {ID: xc.ID, Call: "call-c", Item: NewestItem("p3")}}, Files: split.Files}
	tl = tlFold(t, xc, xa, unknown)
	if ts, cs := tl.Targets(tl.Cut(byItem("p3")), nil); len(ts) != 0 || len(cs) != 2 {
		t.Fatalf("a unit of unknown calls split by the boundary: %+v %+v", ts, cs)
	}
	if ts, cs := tl.Targets(tl.Cut(byItem("p2")), nil); len(cs) != 0 || len(ts) != 2 {
		t.Fatalf("before the whole unit of unknown calls: %+v %+v", ts, cs)
	}
	// A member that names no item is placed by the overlap line's.
	unknown.Members[0].Item = ItemRef{}
	tl = tlFold(t, xc, xa, unknown)
	if ts, cs := tl.Targets(tl.Cut(byItem("p3")), nil); len(cs) != 0 || len(ts) != 2 {
		t.Fatalf("members without items: %+v %+v", ts, cs)
	}

	// An undo among the unit's lines (run while its calls ran).
	e := tlChange("m6-0000000e", "p2", "a", a0, a1)
	undo := UndoLine{V: 1, Kind: KindUndo, ID: e.ID, Files: []KeptFile{{Path: "a", Kept: a1}}}
	rd := tlRecord("m7-0000000d", "p2", fc("a", a1, a0))
	in := OverlapLine{V: 1, Kind: KindOverlap, ID: "m8-000000ee", Members: []OverlapMember{{ID: e.ID, Call: "p2"}, {ID: rd.ID, Call: "p2"}}}
	tl = tlFold(t, e, undo, rd, in)
	if _, cs := tl.Targets(tl.Cut(at("p2")), nil); len(cs) != 1 || cs[0].Path != "a" || cs[0].Kind != ConflictInterleaved {
		t.Fatalf("an undo among the unit's lines: %+v", cs)
	}

	// A call alone among the unit's lines, on a file a call that joined
	// the unit after it ended covers too: the lines meet, nothing is
	// refused.
	m1 := tlChange("m9-00000001", "p2", "x", a0, a1)
	solo := tlChange("m9-00000002", "p2", "b", b0, b1)
	ws := tlRecord("m9-00000003", "p2", fc("b", b1, a0))
	late := OverlapLine{V: 1, Kind: KindOverlap, ID: "m9-00000004", Members: []OverlapMember{{ID: m1.ID, Call: "p2"}, {ID: ws.ID, Call: "p2"}},
		Files: []FileChange{fc("x", a0, a1), fc("b", b1, a0)}}
	tl = tlFold(t, m1, solo, ws, late)
	ts, cs = tl.Targets(tl.Cut(at("p2")), nil)
	if len(cs) != 0 || len(ts) != 2 {
		t.Fatalf("a call alone among a unit's lines: %+v %+v", ts, cs)
	}

	// A damaged overlap line is skipped with an error.
	bad := OverlapLine{V: 1, Kind: KindOverlap, ID: "x", Members: []OverlapMember{{ID: ra.ID}}}
	if err := foldBytes(&Timeline{}, mustJSON(bad)); err == nil {
		t.Fatal("a bad overlap id folds")
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// FuzzTimeline folds any lines into a file revert's timeline, overlap
// lines among them, and works out a revert from every cut: no panic, and
// every target a clean path whose content to put back is stored.
func FuzzTimeline(f *testing.F) {
	a0, a1 := tlState("a0"), tlState("a1")
	ra := tlRecord("m1-0000000a", "p2", fc("a", a0, a1))
	rb := tlRecord("m2-0000000b", "p3", fc("a", a0, a1))
	ov := OverlapLine{V: 1, Kind: KindOverlap, ID: "m3-000000cc", Members: []OverlapMember{{ID: ra.ID, Call: "p2"}, {ID: rb.ID, Call: "p3"}},
		Files: []FileChange{fc("a", a0, a1)}}
	undo := UndoLine{V: 1, Kind: KindUndo, ID: ra.ID, Files: []KeptFile{{Path: "a", Kept: a1}}}
	var seed []byte
	for _, l := range []any{ra, rb, ov, tlChange("m4-0000000d", "p2", "a", a1, a0), undo} {
		seed = append(append(seed, mustJSON(l)...), '\n')
	}
	f.Add(seed)
	f.Add([]byte(`{"v":1,"kind":"overlap","id":"m3-000000cc","members":[{"id":"m3-000000cc"}],"files":[{"path":"../x","before":null,"after":null}]}`))
	f.Add([]byte(`{"v":1,"kind":"overlap","id":"m3-000000cc","members":[],"files":null}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		tl := &Timeline{}
		for _, l := range bytes.Split(b, []byte("\n")) {
			foldBytes(tl, l)
		}
		for _, call := range []string{"", "p2", "p3", "p4"} {
			cut := tl.Cut(Boundary{
				Record: func(c string, _ ItemRef, _ timefmt.Time) bool { return c >= call },
				Event:  func(ItemRef, timefmt.Time) bool { return false },
			})
			ts, _ := tl.Targets(cut, nil)
			for _, tg := range ts {
				if !fstate.ValidRel(tg.Path) || tg.Put != nil && !tg.Put.Stored() {
					t.Fatalf("target %+v", tg)
				}
			}
		}
	})
}
