package engine

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"cairn/internal/vfs"
)

// Tests of file revert's boundary when times tie: the store's clock never
// moves, so every item and every line of the changes journal share one
// millisecond, as fast calls do on a real clock. A line's place among the
// items must come from its "item" (the newest item when it was written),
// never from comparing times (revertAfter).

// tiedClock is a clock that never moves.
func tiedClock() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

// TestFileRevertTiedChangeBeforeAnyItem: a change made before the
// conversation had any item (its line names no call) stays when the files
// are reverted to the first prompt, made in the same millisecond.
func TestFileRevertTiedChangeBeforeAnyItem(t *testing.T) {
	e := newRvEnvWith(t, tiedClock, false)
	e.hand("f.txt", "f0")
	e.write("", "f.txt", "f1") // no item yet
	p1 := e.prompt("one")
	e.write("", "f.txt", "f2")
	must(e.s.Revert(e.ctx, p1.ID, RevertFiles))(t)
	e.want(map[string]string{"f.txt": "f1"})
}

// TestFileRevertTiedCancelledRestore: a restore-to that could put no file
// back is cancelled with redo lines; a change after it, and a prompt in the
// same millisecond: a revert to that prompt has nothing to revert (the
// cancellation lies before the prompt, with the restore it cancels).
// Property test seed 40's failure.
func TestFileRevertTiedCancelledRestore(t *testing.T) {
	e := newRvEnvWith(t, tiedClock, true)
	e.hand("a.txt", "a0")
	e.prompt("zero")
	e.write("", "a.txt", "a1")
	snap := e.newestSnap()
	// Every rename fails: what a.txt holds cannot be kept for redo, so the
	// restore puts nothing back and cancels its step.
	e.faulty.Inject(vfs.Rule{Op: vfs.OpRename})
	if _, err := e.s.RestoreTo(e.ctx, snap); !errors.Is(err, ErrRefused) {
		t.Fatalf("restore with every rename failing: %v", err)
	}
	e.faulty.Reset()
	e.write("", "a.txt", "a2")
	p1 := e.prompt("one")
	res := must(e.s.Revert(e.ctx, p1.ID, RevertFiles))(t)
	e.want(map[string]string{"a.txt": "a2"})
	if len(res.Files.Files) != 0 {
		t.Fatalf("reverted %+v, want nothing", res.Files.Files)
	}
	e.wantCancelledBy("redo", snap)
}

// TestFileRevertTiedOwedCancellation: an undo that could write no file and
// whose cancellation could not be written either owes it; a prompt, then
// a change that first pays the cancellation: a revert to the prompt
// reverts the change only. The cancellation, written after the prompt,
// lies with the undo it cancels, before it.
func TestFileRevertTiedOwedCancellation(t *testing.T) {
	e := newRvEnvWith(t, tiedClock, true)
	e.hand("a.txt", "a0")
	e.prompt("zero")
	e.write("", "a.txt", "a1")
	snap := e.newestSnap()
	// a.txt cannot be replaced, and the journal takes the undo line but
	// not the redo that cancels it.
	e.faulty.Inject(vfs.Rule{Op: vfs.OpRename, Path: "a.txt"})
	e.faulty.Inject(vfs.Rule{Op: vfs.OpWrite, Path: "workspaces/*/sessions/*.changes.jsonl", Skip: 1})
	if _, err := e.s.Undo(e.ctx); err == nil || !strings.Contains(err.Error(), "not recorded yet") {
		t.Fatalf("undo with a.txt and the cancellation failing: %v", err)
	}
	e.faulty.Reset()
	e.want(map[string]string{"a.txt": "a1"})
	p1 := e.prompt("one")
	e.write("", "a.txt", "a2") // pays the cancellation first
	must(e.s.Revert(e.ctx, p1.ID, RevertFiles))(t)
	e.want(map[string]string{"a.txt": "a1"})
	e.wantCancelledBy("redo", snap)
}

// TestFileRevertPlacesOldLinesByTime: lines written before "item" was
// recorded on them are still read, and placed by their time.
func TestFileRevertPlacesOldLinesByTime(t *testing.T) {
	now := tiedClock()
	e := newRvEnvWith(t, func() time.Time { return now }, false)
	e.hand("f.txt", "f0")
	e.write("", "f.txt", "f1")
	now = now.Add(time.Second) // the old line's only place is its time
	p1 := e.prompt("one")
	e.write("", "f.txt", "f2")
	// The first change line as an older version wrote it: no "item".
	name := changesName(e.ws.dir, e.s.ID())
	b := must(vfs.ReadFile(e.mem, name))(t)
	first, rest, _ := strings.Cut(string(b), "\n")
	if !strings.Contains(first, `"item":"",`) {
		t.Fatalf("first line %s: want a change naming no item yet", first)
	}
	first = strings.Replace(first, `"item":"",`, "", 1)
	if err := vfs.WriteFileAtomic(e.mem, name, []byte(first+"\n"+rest)); err != nil {
		t.Fatal(err)
	}
	e.reopen(SessionOptions{})
	must(e.s.Revert(e.ctx, p1.ID, RevertFiles))(t)
	e.want(map[string]string{"f.txt": "f1"})
}

// newestSnap is the id of the session's newest snapshot.
func (e *rvEnv) newestSnap() string {
	e.t.Helper()
	l := must(e.s.Snapshots(e.ctx))(e.t)
	return l.Snapshots[len(l.Snapshots)-1].ID
}

// wantCancelledBy checks that the changes journal holds a line of kind
// for snapshot id naming the same item as the step before it of the same
// snapshot: a cancellation lies where the step it cancels does.
func (e *rvEnv) wantCancelledBy(kind, id string) {
	e.t.Helper()
	b := must(vfs.ReadFile(e.mem, changesName(e.ws.dir, e.s.ID())))(e.t)
	var step, cancel string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.Contains(l, `"id":"`+id+`"`) {
			continue
		}
		if strings.Contains(l, `"kind":"`+kind+`"`) {
			cancel = l
		} else if !strings.Contains(l, `"kind":"change"`) {
			step = l
		}
	}
	item := func(l string) string {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) != nil || m["item"] == nil {
			return "<none>"
		}
		return m["item"].(string)
	}
	if step == "" || cancel == "" || item(cancel) != item(step) || item(step) == "<none>" {
		e.t.Fatalf("step %s\ncancelled by %s\nwant a %s line naming the step's item", step, cancel, kind)
	}
}
