package changes

import (
	"context"
	"slices"
	"testing"

	"cairn/engine/internal/fstate"
	"cairn/internal/vfs"
	"cairn/objects"
)

// TestApply: the applier puts back each file its plan names, leaves those
// the plan leaves and those no longer as expected, reports a file it cannot
// write without stopping, and counts the plans it ran.
func TestApply(t *testing.T) {
	ctx := context.Background()
	m := vfs.NewMem()
	objs := objects.New(m, ".store")
	write := func(name, body string) {
		t.Helper()
		if err := vfs.WriteFileAtomic(m, name, []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	read := func(name string) string {
		b, err := vfs.ReadFile(m, name)
		if vfs.IsNotExist(err) {
			return "<absent>"
		}
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	write("a", "a0")
	write("b", "b0")
	write("c", "c-edited-by-hand")
	write("d", "d0")
	write("blocker", "a file, not a folder")
	old := func(body string) *fstate.State {
		f, err := fstate.InlineSink(ctx, objs)([]byte(body), fstate.ModeFile)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	var a Applier
	res := a.Apply(ctx, m, objs, Plan{Files: []File{
		{Path: "a", To: old("a-old")},              // put back
		{Path: "b", To: old("b-old"), Leave: true}, // left by the plan
		{Path: "c", To: old("c-old"), Check: true, Expect: fstate.Content([]byte("c0"), fstate.ModeFile)},     // changed since: left
		{Path: "d", To: nil, Check: true, Expect: fstate.Content([]byte("d0"), fstate.ModeFile), MaxRead: 10}, // removed
		{Path: "blocker/x", To: old("x")}, // cannot be written
		{Path: "new", To: old("made")},    // made
	}})
	want := map[string]string{"a": "a-old", "b": "b0", "c": "c-edited-by-hand", "d": "<absent>", "new": "made"}
	for name, body := range want {
		if got := read(name); got != body {
			t.Errorf("%s holds %q, want %q", name, got, body)
		}
	}
	wantWritten := []bool{true, false, false, true, false, true}
	for i, w := range wantWritten {
		if res.Written[i] != w || (res.Errs[i] != nil) != (i == 4) {
			t.Errorf("file %d: written %v err %v", i, res.Written[i], res.Errs[i])
		}
	}
	if res.Sync != nil {
		t.Fatal(res.Sync)
	}
	a.Apply(ctx, m, objs, Plan{})
	if a.Runs() != 2 {
		t.Fatalf("runs = %d, want 2", a.Runs())
	}
}

// TestPlanMakers: the plans of an undo, a redo and a recovery say which
// state each file gets and which are left.
func TestPlanMakers(t *testing.T) {
	st := func(b string) *fstate.State { return fstate.Content([]byte(b), fstate.ModeFile) }
	e := &Entry{Rec: ChangeLine{ID: "a-00000000", Files: []FileChange{
		{Path: "x", Before: st("x0")}, {Path: "y", Before: st("y0")}, {Path: "z", Before: nil},
	}}}
	kept := []*fstate.State{st("x1"), st("y0"), {Skipped: fstate.SkipTooLarge}}
	u := UndoPlan(e, kept, []bool{false, false, true})
	if u.Files[0].Leave || u.Files[0].To != e.Rec.Files[0].Before || !u.Files[1].Leave || !u.Files[2].Leave {
		t.Fatalf("undo plan %+v", u)
	}
	e.Kept = kept
	r := RedoPlan(e, []bool{false, true, false})
	if r.Files[0].To != kept[0] || r.Files[0].Leave || !r.Files[1].Leave {
		t.Fatalf("redo plan %+v", r)
	}
	all := func(*fstate.State) bool { return true }
	// An undo not finished: from what it kept to the pre-image.
	p := RecoveryPlan(e, all)
	if f := p.Files[0]; f.Leave || !f.Check || f.Expect != kept[0] || f.To != e.Rec.Files[0].Before {
		t.Fatalf("recovery of an undo, x: %+v", f)
	}
	if !p.Files[1].Leave || !p.Files[2].Leave { // already the same; kept skipped
		t.Fatalf("recovery of an undo left %+v", p.Files)
	}
	// A redo not finished: from the pre-image to what the undo kept.
	e.Applied = true
	p = RecoveryPlan(e, all)
	if f := p.Files[0]; f.Leave || f.Expect != e.Rec.Files[0].Before || f.To != kept[0] {
		t.Fatalf("recovery of a redo, x: %+v", f)
	}
	if p = RecoveryPlan(e, func(*fstate.State) bool { return false }); !p.Files[0].Leave {
		t.Fatal("a state that cannot be put back is not left")
	}
}

// TestApplySwapBack: a file a tool swapped out gets its old content back by
// swapping again, the temp removed; when the swap fails it gets To unless
// the plan leaves it, and a temp that cannot be removed is reported.
func TestApplySwapBack(t *testing.T) {
	ctx := context.Background()
	m := vfs.NewMem()
	f := vfs.NewFaulty(m)
	objs := objects.New(m, ".store")
	for name, body := range map[string]string{"a": "a-new", "a.tmp": "a-old", "b": "b-new", "b.tmp": "b-old", "c": "c-new", "c.tmp": "c-old", "d": "d-new", "d.tmp": "d-old"} {
		if err := vfs.WriteFileAtomic(m, name, []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	f.Inject(vfs.Rule{Op: vfs.OpRename, Path: "b.tmp"}) // b and c cannot swap back
	f.Inject(vfs.Rule{Op: vfs.OpRename, Path: "c.tmp"})
	f.Inject(vfs.Rule{Op: vfs.OpRemove, Path: "d.tmp"}) // d's temp stays
	before, err := fstate.InlineSink(ctx, objs)([]byte("b-before"), fstate.ModeFile)
	if err != nil {
		t.Fatal(err)
	}
	var a Applier
	res := a.Apply(ctx, f, objs, Plan{Files: []File{
		{Path: "a", SwapBack: "a.tmp"},
		{Path: "b", SwapBack: "b.tmp", To: before},
		{Path: "c", SwapBack: "c.tmp", Leave: true},
		{Path: "d", SwapBack: "d.tmp"},
	}})
	want := map[string]string{"a": "a-old", "a.tmp": "<absent>", "b": "b-before", "c": "c-new", "d": "d-old", "d.tmp": "d-new"}
	for name, body := range want {
		b, err := vfs.ReadFile(m, name)
		got := string(b)
		if vfs.IsNotExist(err) {
			got = "<absent>"
		}
		if got != body {
			t.Errorf("%s holds %q, want %q", name, got, body)
		}
	}
	if w := []bool{true, true, false, true}; !slices.Equal(res.Written, w) {
		t.Errorf("written %v, want %v", res.Written, w)
	}
	if res.Errs[2] == nil || res.Errs[0] != nil || res.Errs[1] != nil {
		t.Errorf("errs %v: want only c's", res.Errs)
	}
	if len(res.Temps) != 1 {
		t.Errorf("temps %v, want d's", res.Temps)
	}
}
