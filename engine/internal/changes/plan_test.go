package changes

import (
	"context"
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
