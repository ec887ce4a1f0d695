package changes

import (
	"bytes"
	"context"
	"encoding/base64"
	"slices"
	"strconv"
	"strings"
	"testing"

	"cairn/engine/internal/fstate"
	"cairn/internal/vfs"
)

const (
	lineA  = `{"v":1,"kind":"change","id":"a-00000000","seq":1,"at":"2026-01-01T00:00:00.000Z","tool":"edit","call":"i-0123456789abcdef","scope":"paths","files":[{"path":"a","before":null,"after":null}]}`
	lineB  = `{"v":1,"kind":"change","id":"b-00000000","seq":2,"at":"2026-01-01T00:00:01.000Z","tool":"write","scope":"paths","files":[{"path":"b","before":null,"after":null}]}`
	undoA  = `{"v":1,"kind":"undo","id":"a-00000000","files":[{"path":"a","kept":null}]}`
	undoB  = `{"v":1,"kind":"undo","id":"b-00000000","files":[{"path":"b","kept":null}]}`
	redoA  = `{"v":1,"kind":"redo","id":"a-00000000"}`
	abortB = `{"v":1,"kind":"abort","id":"b-00000000"}`
	abortA = `{"v":1,"kind":"abort","id":"a-00000000"}`
	closeL = `{"v":1,"kind":"close"}`
	dropA  = `{"v":1,"kind":"drop","ids":["a-00000000"],"why":"max_per_session"}`
)

// fold applies lines and says the stack as "id+" (applied) or "id-"
// (undone), and the errors of the lines it skipped.
func fold(lines ...string) (string, []string) {
	var st Stack
	var errs []string
	for _, l := range lines {
		if err := foldBytes(&st, []byte(l)); err != nil {
			errs = append(errs, err.Error())
		}
	}
	var out []string
	for _, e := range st.list {
		mark := "-"
		if e.Applied {
			mark = "+"
		}
		out = append(out, e.Rec.ID[:1]+mark)
	}
	return strings.Join(out, " "), errs
}

// TestStackFold: the fold of each line kind, and the lines that do not fit
// the stack skipped with an error.
func TestStackFold(t *testing.T) {
	for _, tc := range []struct {
		lines []string
		want  string
		errs  int
	}{
		{[]string{lineA, lineB}, "a+ b+", 0},
		{[]string{lineA, lineB, undoB, undoA}, "a- b-", 0},
		{[]string{lineA, lineB, undoB, undoA, redoA}, "a+ b-", 0},
		{[]string{lineA, undoA, lineB}, "b+", 0},                                       // a change ends the undone branch
		{[]string{lineA, undoA, lineB, abortB}, "a-", 0},                               // an abort puts the branch back
		{[]string{lineA, lineB, dropA}, "b+", 0},                                       // the oldest dropped
		{[]string{lineA, lineB, abortB}, "a+", 0},                                      // the change before is pending again
		{[]string{lineA, lineB, abortB, abortA}, "", 0},                                // and may be aborted in turn
		{[]string{lineA, lineB, abortA}, "a+ b+", 1},                                   // abort of a change not the newest
		{[]string{lineA, lineB, closeL, abortB}, "a+ b+", 1},                           // after a close line, nothing is pending
		{[]string{lineA, undoA, lineB, abortB, abortA}, "a-", 1},                       // an undo settled a
		{[]string{lineA, undoB}, "a+", 1},                                              // undo of a snapshot not the newest applied
		{[]string{lineA, lineA}, "a+", 1},                                              // a snapshot twice
		{[]string{lineA, redoA}, "a+", 1},                                              // redo with nothing undone
		{[]string{"not json", lineA, `{"v":2}`}, "a+", 2},                              // not change lines
		{[]string{strings.Replace(lineA, `"path":"a"`, `"path":"../a"`, 1)}, "", 1},    // a path climbing out
		{[]string{strings.Replace(lineA, `i-0123456789abcdef`, `bad call`, 1)}, "", 1}, // a call of a bad form
	} {
		got, errs := fold(tc.lines...)
		if got != tc.want || len(errs) != tc.errs {
			t.Errorf("fold %v = %q %v, want %q with %d errors", tc.lines, got, errs, tc.want, tc.errs)
		}
	}
	var st Stack
	for _, l := range []string{lineA, lineB} {
		foldBytes(&st, []byte(l))
	}
	if st.Pending() == nil || st.Pending().Rec.ID != "b-00000000" || st.Seq() != 2 || st.Cursor() != 2 ||
		st.list[0].Rec.Call != "i-0123456789abcdef" {
		t.Fatalf("stack %+v", st)
	}
	foldBytes(&st, []byte(undoB))
	if st.Pending() != nil || st.Restoring() == nil || !slices.Equal(st.Undone(), []string{"b-00000000"}) {
		t.Fatalf("after undo: pending %v restoring %v undone %v", st.Pending(), st.Restoring(), st.Undone())
	}
}

func FuzzStack(f *testing.F) {
	f.Add([]byte(strings.Join([]string{lineA, lineB, undoB, undoA, redoA, abortB, dropA}, "\n")))
	f.Fuzz(func(t *testing.T, b []byte) {
		var st Stack
		for _, l := range bytes.Split(b, []byte("\n")) {
			foldBytes(&st, l)
		}
		applied := true
		for _, e := range st.list {
			if e.Applied && !applied {
				t.Fatal("an applied snapshot above an undone one")
			}
			applied = e.Applied
			for _, f := range e.Rec.Files {
				if !fstate.ValidRel(f.Path) {
					t.Fatalf("path %q folded", f.Path)
				}
			}
		}
	})
}

// TestUnmade: the pending change is unmade while its file is still as
// before; once it holds the after state, or anything else, it was made.
func TestUnmade(t *testing.T) {
	ctx := context.Background()
	m := vfs.NewMem()
	write := func(b string) {
		if err := vfs.WriteFileAtomic(m, "a", []byte(b)); err != nil {
			t.Fatal(err)
		}
	}
	before, after := fstate.Content([]byte("old"), fstate.ModeFile), fstate.Content([]byte("new"), fstate.ModeFile)
	var st Stack
	e := &Entry{Applied: true, Rec: ChangeLine{ID: "a-00000000", Files: []FileChange{{Path: "a", Before: before, After: after}}}}
	st.list, st.pending = []*Entry{e}, e
	for _, tc := range []struct {
		holds  string
		unmade bool
	}{{"old", true}, {"new", false}, {"hand edit", false}} {
		write(tc.holds)
		if got := st.Unmade(ctx, m); got != tc.unmade {
			t.Errorf("file holds %q: unmade = %v, want %v", tc.holds, got, tc.unmade)
		}
	}
	write("old")
	st.pending = nil // an undo, abort or close line followed
	if st.Unmade(ctx, m) {
		t.Error("a change no longer pending taken as unmade")
	}
}

// TestUnmadeTwoInARow: the same file written twice in a row, both lines
// unsettled (Prev): a file as the first's pre-image is as before both, the
// second is unmade and then the first; as the first's after state, only
// the second is unmade; as the second's, both are made. Once the first is
// settled (a line that waits for it followed: a close line, or a shell
// command's call and record lines), its pre-image no longer counts.
func TestUnmadeTwoInARow(t *testing.T) {
	ctx := context.Background()
	m := vfs.NewMem()
	state := func(b string) *fstate.State { return fstate.Content([]byte(b), fstate.ModeFile) }
	line := func(id, before, after string) string {
		return `{"v":1,"kind":"change","id":"` + id + `","seq":1,"at":"2026-01-01T00:00:00.000Z","tool":"write","scope":"paths","files":[{"path":"a",` +
			`"before":{"sha256":"` + state(before).SHA256 + `","size":` + strconv.Itoa(len(before)) + `,"mode":"file","data":"` + base64.StdEncoding.EncodeToString([]byte(before)) + `"},` +
			`"after":{"sha256":"` + state(after).SHA256 + `","size":` + strconv.Itoa(len(after)) + `,"mode":"file"}}]}`
	}
	call := `{"v":1,"kind":"call","id":"c-00000000","at":"2026-01-01T00:00:00.000Z","tool":"exec","scope":"paths","paths":["x"]}`
	record := `{"v":1,"kind":"record","id":"c-00000000","seq":2,"at":"2026-01-01T00:00:00.000Z","tool":"exec","scope":"paths","files":[]}`
	for _, tc := range []struct {
		holds   string
		between []string // lines between the two that waited for the first
		unmade  int      // how many of the two are unmade, newest first
	}{{"one", nil, 2}, {"two", nil, 1}, {"three", nil, 0}, {"hand edit", nil, 0},
		{"one", []string{closeL}, 0}, {"two", []string{closeL}, 1},
		{"one", []string{call, record}, 0}, {"one", []string{call}, 0}, {"two", []string{call, record}, 1}} {
		if err := vfs.WriteFileAtomic(m, "a", []byte(tc.holds)); err != nil {
			t.Fatal(err)
		}
		var st Stack
		lines := append([]string{line("a-00000000", "one", "two")}, tc.between...)
		lines = append(lines, line("b-00000000", "two", "three"))
		for _, l := range lines {
			if err := foldBytes(&st, []byte(l)); err != nil {
				t.Fatal(err)
			}
		}
		n := 0
		for ; n < 2 && st.Unmade(ctx, m); n++ {
			st.PopPending()
		}
		if n != tc.unmade || len(st.list) != 2-n {
			t.Errorf("file holds %q (between %d lines): %d unmade, %d listed; want %d unmade", tc.holds, len(tc.between), n, len(st.list), tc.unmade)
		}
	}
}

// TestUnmadeBehindUnsettled: file a written small (its folder's sync left
// to the end of the turn), then file b, then a again: a file a as the
// first change's pre-image, after a crash lost both of a's writes, is as
// before the newest too, though the change just before it (Prev) did not
// change a. Once a line that waited for every file change follows the
// first (a close line), its pre-image no longer counts.
func TestUnmadeBehindUnsettled(t *testing.T) {
	ctx := context.Background()
	m := vfs.NewMem()
	state := func(b string) *fstate.State { return fstate.Content([]byte(b), fstate.ModeFile) }
	line := func(id, path, before, after string) string {
		return `{"v":1,"kind":"change","id":"` + id + `","seq":1,"at":"2026-01-01T00:00:00.000Z","tool":"write","scope":"paths","files":[{"path":"` + path + `",` +
			`"before":{"sha256":"` + state(before).SHA256 + `","size":` + strconv.Itoa(len(before)) + `,"mode":"file","data":"` + base64.StdEncoding.EncodeToString([]byte(before)) + `"},` +
			`"after":{"sha256":"` + state(after).SHA256 + `","size":` + strconv.Itoa(len(after)) + `,"mode":"file","data":"` + base64.StdEncoding.EncodeToString([]byte(after)) + `"}}]}`
	}
	for _, tc := range []struct {
		holds  string
		close  bool // a close line after the first change
		unmade bool
	}{{"one", false, true}, {"two", false, true}, {"three", false, false}, {"hand edit", false, false}, {"one", true, false}, {"two", true, true}} {
		if err := vfs.WriteFileAtomic(m, "a", []byte(tc.holds)); err != nil {
			t.Fatal(err)
		}
		lines := []string{line("a-00000000", "a", "one", "two")}
		if tc.close {
			lines = append(lines, closeL)
		}
		lines = append(lines, line("b-00000000", "b", "x", "y"), line("c-00000000", "a", "two", "three"))
		var st Stack
		for _, l := range lines {
			if err := foldBytes(&st, []byte(l)); err != nil {
				t.Fatal(err)
			}
		}
		if got := st.Unmade(ctx, m); got != tc.unmade {
			t.Errorf("a holds %q (close line %v): unmade = %v, want %v", tc.holds, tc.close, got, tc.unmade)
		}
	}
}

// TestStackOwnsItsRules: what an owner tells the stack of lines it wrote
// without folding them leaves the stack as the fold of those lines would:
// Committed ends the pending change, Settled ends a pending change and an
// unfinished undo, and a line not of version 1 is no line at all.
func TestStackOwnsItsRules(t *testing.T) {
	folded := func(lines ...string) *Stack {
		st := &Stack{}
		for _, l := range lines {
			foldBytes(st, []byte(l))
		}
		return st
	}
	st := folded(lineA, lineB) // b pending, a before it
	if st.Pending() == nil || st.Prev() == nil {
		t.Fatalf("pending %v prev %v, want b and a", st.Pending(), st.Prev())
	}
	st.Committed(ChangeLine{Seq: 7}, st.Entries())
	if st.Pending() != nil || st.Prev() != nil || st.Restoring() != nil || st.Seq() != 7 {
		t.Errorf("after Committed: pending %v prev %v restoring %v seq %d", st.Pending(), st.Prev(), st.Restoring(), st.Seq())
	}
	if len(st.Unsettled()) == 0 {
		t.Error("Committed settled the changes before it: only a line that waits does")
	}
	st = folded(lineA, lineB, undoB) // b's undo may not have finished
	if st.Restoring() == nil {
		t.Fatal("no undo being restored")
	}
	st.Settled()
	if st.Pending() != nil || st.Prev() != nil || st.Restoring() != nil || len(st.Unsettled()) != 0 {
		t.Errorf("after Settled: pending %v prev %v restoring %v unsettled %d", st.Pending(), st.Prev(), st.Restoring(), len(st.Unsettled()))
	}
	for _, b := range []string{`{"v":2,"kind":"close"}`, `{"kind":"close"}`, `not json`} {
		if _, err := Decode([]byte(b)); err == nil {
			t.Errorf("Decode(%s) read a line", b)
		}
	}
}
