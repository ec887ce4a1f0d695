package remote

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"cairn/internal/vfs"
)

const testURL = "file:///remote"

// stateOf n sessions, each pushed up to a size of its own, one with
// pending segments and one forgotten, and one other machine read.
func stateOf(t *testing.T, n int) *State {
	t.Helper()
	st := newState(testURL)
	st.fill()
	for i := range n {
		id := fmt.Sprintf("%08x-0000-4000-8000-000000000000", i)
		st.session(id, "workspaces/w").Files[FileItems] = &FileState{End: int64(100 + i), Tail: "t"}
		st.Cards[id] = &Card{ID: id, Path: "/p", Title: fmt.Sprint("session ", i), Machine: "m"}
		st.touch(id)
	}
	st.Pending[fmt.Sprintf("%08x-0000-4000-8000-000000000000", 1)] = []Segment{{File: FileItems, Off: 101, Size: 9}}
	st.Forgotten[fmt.Sprintf("%08x-0000-4000-8000-000000000000", 2)] = true
	st.Machines["other"] = &MachineState{Seq: 7}
	st.Seq = 3
	return st
}

// sameState compares what two states hold, as they are written (a map
// left empty and one not made yet are the same).
func sameState(a, b *State) bool {
	return a.Seq == b.Seq && a.URL == b.URL && sameJSON(a.Machines, b.Machines) &&
		sameJSON(a.Sessions, b.Sessions) && sameJSON(a.Cards, b.Cards) &&
		sameJSON(a.Pending, b.Pending) && sameJSON(a.Forgotten, b.Forgotten)
}

func sameJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func mustLoad(t *testing.T, fsys vfs.FS) *State {
	t.Helper()
	st, err := LoadState(fsys, "origin", testURL)
	if err != nil {
		t.Fatal(err)
	}
	st.wantAll() // what it holds, decoded, to compare
	return st
}

// TestStateLoadDecodesWhatIsAsked: a load decodes the lines of sessions
// with pending segments, which a pull reads all of, and no other: a
// session's line (a forgotten one's too) is decoded when the session is
// asked for, and gives what was saved.
func TestStateLoadDecodesWhatIsAsked(t *testing.T) {
	m := vfs.NewMem()
	saved := stateOf(t, 300)
	if err := saved.Save(m, "origin"); err != nil {
		t.Fatal(err)
	}
	st, err := LoadState(m, "origin", testURL)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Sessions) != 1 || len(st.Cards) != 1 || len(st.log.raw) != 0 || len(st.Forgotten) != 0 {
		t.Fatalf("the load decoded %d sessions, %d cards and %d forgets, left %d lines; want 1, 1, 0, 0",
			len(st.Sessions), len(st.Cards), len(st.Forgotten), len(st.log.raw))
	}
	if !sameJSON(st.Pending, saved.Pending) {
		t.Fatal("pending segments were not read at load")
	}
	gone := fmt.Sprintf("%08x-0000-4000-8000-000000000000", 2)
	if st.want(gone); !st.Forgotten[gone] {
		t.Fatal("a forgotten session asked for is not forgotten")
	}
	id := fmt.Sprintf("%08x-0000-4000-8000-000000000000", 42)
	if ss := st.session(id, "elsewhere"); !sameJSON(ss, saved.Sessions[id]) {
		t.Fatalf("session %s asked for: %+v", id, ss)
	}
	if st.Cards[id] == nil || st.Cards[id].Title != "session 42" {
		t.Fatalf("the card of %s asked for: %+v", id, st.Cards[id])
	}
	if len(st.Sessions) != 3 {
		t.Fatalf("asking for two sessions left %d decoded, want 3", len(st.Sessions))
	}
}

// TestStateSaveWritesWhatChanged: once a state of many sessions is saved,
// a save after one session changed appends that session's line alone,
// leaves what was written before as it was, and state.json names no
// session; loaded again, the state is what was saved.
func TestStateSaveWritesWhatChanged(t *testing.T) {
	m := vfs.NewMem()
	st := stateOf(t, 300)
	if err := st.Save(m, "origin"); err != nil {
		t.Fatal(err)
	}
	before, err := vfs.ReadFile(m, sessionsName("origin"))
	if err != nil {
		t.Fatal(err)
	}
	id := fmt.Sprintf("%08x-0000-4000-8000-000000000000", 42)
	st.Sessions[id].Files[FileItems] = &FileState{End: 999, Tail: "u"}
	st.touch(id)
	st.Seq++
	if err := st.Save(m, "origin"); err != nil {
		t.Fatal(err)
	}
	after, _ := vfs.ReadFile(m, sessionsName("origin"))
	if !bytes.HasPrefix(after, before) {
		t.Fatal("the save after one change rewrote the sessions journal")
	}
	added := strings.Split(strings.TrimSuffix(string(after[len(before):]), "\n"), "\n")
	if len(added) != 1 || !strings.Contains(added[0], id) {
		t.Fatalf("the save after one change appended %q", added)
	}
	head, _ := vfs.ReadFile(m, stateName("origin"))
	if bytes.Contains(head, []byte("-4000-8000-")) {
		t.Fatalf("state.json names sessions: %.200s", head)
	}
	if got := mustLoad(t, m); !sameState(got, st) {
		t.Fatal("the state loaded again differs from the one saved")
	}
}

// TestStateFirstFormatMoves: a state.json of the first format (sessions
// inside) is read, and the next save moves its sessions to the journal.
func TestStateFirstFormatMoves(t *testing.T) {
	m := vfs.NewMem()
	st := stateOf(t, 5)
	st.V = 1
	b, _ := json.Marshal(st)
	vfs.MkdirAllDurable(m, StateDir("origin"), vfs.DirPerm)
	if err := vfs.WriteFileAtomic(m, stateName("origin"), b); err != nil {
		t.Fatal(err)
	}
	got := mustLoad(t, m)
	if !sameState(got, st) {
		t.Fatal("a first-format state was not read whole")
	}
	if err := got.Save(m, "origin"); err != nil {
		t.Fatal(err)
	}
	if again := mustLoad(t, m); !sameState(again, st) {
		t.Fatal("a first-format state lost sessions when saved in the second")
	}
}

// TestStateDamagedJournalIsDropped: a whole line of the journal that does
// not decode drops the state whole, the other machines' logs included (so
// the next sync reads them again and notes what they name), and the next
// save writes the journal anew.
func TestStateDamagedJournalIsDropped(t *testing.T) {
	m := vfs.NewMem()
	st := stateOf(t, 10)
	if err := st.Save(m, "origin"); err != nil {
		t.Fatal(err)
	}
	b, _ := vfs.ReadFile(m, sessionsName("origin"))
	lines := strings.SplitAfter(string(b), "\n")
	lines[3] = "{garbage\n"
	vfs.WriteFileAtomic(m, sessionsName("origin"), []byte(strings.Join(lines, "")))
	got := mustLoad(t, m)
	if len(got.Sessions) != 0 || len(got.Machines) != 0 || len(got.Pending) != 0 || got.Seq != 0 {
		t.Fatalf("a damaged journal was kept: %d sessions, %d machines", len(got.Sessions), len(got.Machines))
	}
	if err := got.Save(m, "origin"); err != nil {
		t.Fatal(err)
	}
	if b, _ := vfs.ReadFile(m, sessionsName("origin")); bytes.Contains(b, []byte("garbage")) {
		t.Fatal("the damaged journal was appended to, not written anew")
	}
}

// TestStateCrashAtEverySyncPoint: a save of one changed session is
// stopped at each of its sync points and the power is lost there, every
// unsynced change surviving or not at random. The state loads every time,
// each session as it was before the save or after it, and the next save
// and load give back exactly what was saved (a torn line is cut off).
func TestStateCrashAtEverySyncPoint(t *testing.T) {
	for stop := 0; ; stop++ {
		done := false
		for seed := range uint64(8) {
			m := vfs.NewMem()
			old := stateOf(t, 40)
			if err := old.Save(m, "origin"); err != nil {
				t.Fatal(err)
			}
			old = mustLoad(t, m)
			cur := mustLoad(t, m)
			ids := []string{fmt.Sprintf("%08x-0000-4000-8000-000000000000", 7), fmt.Sprintf("%08x-0000-4000-8000-000000000000", 1)}
			for _, id := range ids {
				cur.Sessions[id].Files[FileItems] = &FileState{End: 5000, Tail: "new"}
				delete(cur.Pending, id)
				cur.touch(id)
			}
			cur.Machines["other"] = &MachineState{Seq: 9}
			m.FailAfterSyncs(stop)
			err := cur.Save(m, "origin")
			m.CrashPartial(rand.New(rand.NewPCG(seed, uint64(stop))))
			if err == nil {
				done = true
			}
			got := mustLoad(t, m)
			if len(got.Sessions) != 40 {
				if err == nil || len(got.Sessions) != 0 {
					t.Fatalf("stop %d seed %d: %d sessions after the crash", stop, seed, len(got.Sessions))
				}
			}
			for id, ss := range got.Sessions {
				if !sameJSON(ss, old.Sessions[id]) && !sameJSON(ss, cur.Sessions[id]) {
					t.Fatalf("stop %d seed %d: session %s is neither as before the save nor as after", stop, seed, id)
				}
			}
			if err == nil && !sameState(got, cur) {
				t.Fatalf("stop %d seed %d: a save that returned did not survive", stop, seed)
			}
			id := fmt.Sprintf("%08x-0000-4000-8000-000000000000", 9)
			if ss := got.Sessions[id]; ss != nil {
				ss.Files[FileItems] = &FileState{End: 77}
				got.touch(id)
			}
			if err := got.Save(m, "origin"); err != nil {
				t.Fatal(err)
			}
			if again := mustLoad(t, m); !sameState(again, got) {
				t.Fatalf("stop %d seed %d: the save after the crash did not load back whole", stop, seed)
			}
		}
		if done {
			return
		}
	}
}
