package remote

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"cairn/internal/vfs"
)

// readCounter counts the bytes read from one file of an FS.
type readCounter struct {
	vfs.FS
	name  string
	n     atomic.Int64
	opens atomic.Int64
}

func (c *readCounter) OpenFile(name string, flag int, perm fs.FileMode) (vfs.File, error) {
	f, err := c.FS.OpenFile(name, flag, perm)
	if err != nil || name != c.name {
		return f, err
	}
	c.opens.Add(1)
	return &countedFile{File: f, n: &c.n}, nil
}

type countedFile struct {
	vfs.File
	n *atomic.Int64
}

func (f *countedFile) Read(b []byte) (int, error) {
	n, err := f.File.Read(b)
	f.n.Add(int64(n))
	return n, err
}

func (f *countedFile) ReadAt(b []byte, off int64) (int, error) {
	n, err := f.File.ReadAt(b, off)
	f.n.Add(int64(n))
	return n, err
}

func nthID(i int) string { return fmt.Sprintf("%08x-0000-4000-8000-000000000000", i) }

// TestStateLoadReadsLittleOfTheJournal: once the journal of many sessions
// was written whole and a turn's save appended a line, a load and the
// sessions a sync asks for read a small part of the journal, not all of
// it, and give what was saved.
func TestStateLoadReadsLittleOfTheJournal(t *testing.T) {
	m := vfs.NewMem()
	st := stateOf(t, 3000)
	if err := st.Save(m, "origin"); err != nil {
		t.Fatal(err)
	}
	st.Sessions[nthID(1500)].Files[FileItems] = &FileState{End: 5000, Tail: "changed"}
	st.touch(nthID(1500))
	if err := st.Save(m, "origin"); err != nil {
		t.Fatal(err)
	}
	size := int64(len(must(vfs.ReadFile(m, sessionsName("origin")))))
	c := &readCounter{FS: m, name: sessionsName("origin")}
	got, err := LoadState(c, "origin", testURL)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{nthID(1500), nthID(0), nthID(2999), nthID(777), nthID(4000)} {
		got.want(id)
		if !sameJSON(got.Sessions[id], st.Sessions[id]) || !sameJSON(got.Cards[id], st.Cards[id]) {
			t.Fatalf("session %s read back as %+v, saved %+v", id, got.Sessions[id], st.Sessions[id])
		}
	}
	if n := c.n.Load(); n*8 > size {
		t.Fatalf("a load and five sessions asked for read %d bytes of a %d-byte journal", n, size)
	}
	if got.wantAll(); !sameState(got, st) {
		t.Fatal("the state read whole differs from the one saved")
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestStateManySessionsAskedForReadTheJournalOnce: a sync that asks for
// more sessions than maxLookups (a large pull) reads the sorted part once
// instead of searching it for each, and each session is what was saved.
func TestStateManySessionsAskedForReadTheJournalOnce(t *testing.T) {
	m := vfs.NewMem()
	st := stateOf(t, 2*maxLookups)
	if err := st.Save(m, "origin"); err != nil {
		t.Fatal(err)
	}
	c := &readCounter{FS: m, name: sessionsName("origin")}
	got, err := LoadState(c, "origin", testURL)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 * maxLookups {
		got.touch(nthID(i))
		if !sameJSON(got.Sessions[nthID(i)], st.Sessions[nthID(i)]) {
			t.Fatalf("session %d read as %+v", i, got.Sessions[nthID(i)])
		}
	}
	if n := c.opens.Load(); n > maxLookups+4 {
		t.Fatalf("asking for %d sessions opened the journal %d times", 2*maxLookups, n)
	}
}

// TestStateSortedFindsEverySession: each session asked for alone, in a
// journal written whole whose lines are short and long (a session of many
// outputs is longer than a search reads at once), gives what was saved,
// and an id between, before or after them gives nothing.
func TestStateSortedFindsEverySession(t *testing.T) {
	m := vfs.NewMem()
	st := newState(testURL)
	st.fill()
	r := rand.New(rand.NewPCG(3, 4))
	var ids []string
	for i := range 400 {
		id := nthID(2 * i)
		ss := st.session(id, "workspaces/w")
		ss.Files[FileItems] = &FileState{End: int64(i)}
		if r.IntN(20) == 0 {
			for j := range r.IntN(3000) {
				ss.Outputs[fmt.Sprintf("call-%06d", j)] = true
			}
		}
		st.touch(id)
		ids = append(ids, id)
	}
	if err := st.Save(m, "origin"); err != nil {
		t.Fatal(err)
	}
	if sp := st.log.sorted; sp == nil || sp.End-sp.Start < 8*findWindow {
		t.Fatalf("the sorted part is too small to test a search: %+v", sp)
	}
	for _, id := range ids {
		got, err := LoadState(m, "origin", testURL)
		if err != nil {
			t.Fatal(err)
		}
		if got.want(id); !sameJSON(got.Sessions[id], st.Sessions[id]) {
			t.Fatalf("session %s asked for alone: %.200v", id, got.Sessions[id])
		}
	}
	got, _ := LoadState(m, "origin", testURL)
	for _, id := range []string{nthID(1), nthID(401), nthID(799), nthID(800), "00000000-0000-4000-8000-00000000000a", "ffffffff-0000-4000-8000-000000000000"} {
		if got.want(id); got.Sessions[id] != nil {
			t.Fatalf("session %s, never saved, was found", id)
		}
	}
}

// TestStateNotSortedAsTheHeadSays: a journal written whole again after
// the head was (by a save cut short, or an older cairn, which writes no
// mark) is read whole, and gives what it says; the next save writes it
// sorted again.
func TestStateNotSortedAsTheHeadSays(t *testing.T) {
	m := vfs.NewMem()
	st := stateOf(t, 50)
	if err := st.Save(m, "origin"); err != nil {
		t.Fatal(err)
	}
	// The journal written whole again, unsorted and without the mark, with
	// session 7 changed.
	st.Sessions[nthID(7)].Files[FileItems] = &FileState{End: 7777}
	var buf bytes.Buffer
	for i := 49; i >= 0; i-- {
		writeRecord(&buf, st.record(nthID(i)))
	}
	if err := vfs.WriteFileAtomic(m, sessionsName("origin"), buf.Bytes()); err != nil {
		t.Fatal(err)
	}
	got := mustLoad(t, m)
	if !sameState(got, st) {
		t.Fatal("a journal not sorted as the head says was not read as it is")
	}
	if err := got.Save(m, "origin"); err != nil {
		t.Fatal(err)
	}
	if got.log.sorted == nil || got.log.tail != 1 { // the session with pending segments
		t.Fatalf("the save after did not write the journal sorted: %+v, %d lines past it", got.log.sorted, got.log.tail)
	}
	if again := mustLoad(t, m); !sameState(again, st) {
		t.Fatal("the journal written sorted again does not load back")
	}
}

// TestStateMarkNotTheHeads: a journal written whole again with a mark
// other than the head's (a save cut short between the journal and the
// head) is read whole, even when it keeps the sorted part's size and line
// ends: here two sessions' lines of the same length traded places, so a
// search of it as sorted would miss them.
func TestStateMarkNotTheHeads(t *testing.T) {
	m := vfs.NewMem()
	st := stateOf(t, 50)
	if err := st.Save(m, "origin"); err != nil {
		t.Fatal(err)
	}
	b := must(vfs.ReadFile(m, sessionsName("origin")))
	lines := bytes.SplitAfter(b, []byte("\n"))
	lines[0] = markLine(newMark())
	var a, z int
	for i, l := range lines {
		if bytes.Contains(l, []byte(nthID(10))) {
			a = i
		}
		if bytes.Contains(l, []byte(nthID(40))) {
			z = i
		}
	}
	if len(lines[a]) != len(lines[z]) {
		t.Fatalf("the lines of sessions 10 and 40 differ in length: %d, %d", len(lines[a]), len(lines[z]))
	}
	lines[a], lines[z] = lines[z], lines[a]
	if err := vfs.WriteFileAtomic(m, sessionsName("origin"), bytes.Join(lines, nil)); err != nil {
		t.Fatal(err)
	}
	got, err := LoadState(m, "origin", testURL)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{10, 40} {
		if got.want(nthID(i)); !sameJSON(got.Sessions[nthID(i)], st.Sessions[nthID(i)]) {
			t.Fatalf("session %d read as %+v", i, got.Sessions[nthID(i)])
		}
	}
}

// TestStateTailIsBounded: the lines a save appends past the sorted part
// stay under tailMax: the save that would pass it writes the journal
// whole and sorted, so a load never reads more than that many lines.
func TestStateTailIsBounded(t *testing.T) {
	m := vfs.NewMem()
	st := stateOf(t, 100)
	if err := st.Save(m, "origin"); err != nil {
		t.Fatal(err)
	}
	max := st.log.tailMax()
	rewrote := false
	for i := range max + 10 {
		id := nthID(i % 100)
		st.Sessions[id].Files[FileItems] = &FileState{End: int64(10000 + i)}
		st.touch(id)
		before := st.log.sorted.Mark
		if err := st.Save(m, "origin"); err != nil {
			t.Fatal(err)
		}
		if st.log.appended() > max {
			t.Fatalf("save %d left %d lines appended past the sorted part, more than %d", i, st.log.appended(), max)
		}
		rewrote = rewrote || st.log.sorted.Mark != before
		if i%50 != 0 && st.log.sorted.Mark == before {
			continue
		}
		got, err := LoadState(m, "origin", testURL)
		if err != nil {
			t.Fatal(err)
		}
		if got.log.sorted == nil || got.log.tail != st.log.tail {
			t.Fatalf("save %d: loaded with %d lines past the sorted part (%v), saved %d", i, got.log.tail, got.log.sorted != nil, st.log.tail)
		}
	}
	if !rewrote {
		t.Fatal("the journal was never written whole again")
	}
	if got := mustLoad(t, m); !sameState(got, st) {
		t.Fatal("the state loaded after the saves differs from the one saved")
	}
}

// TestStateRewriteCrashAtEverySyncPoint: a save that writes the journal
// whole (many sessions changed) is stopped at each of its sync points and
// the power is lost there, unsynced changes surviving or not at random.
// The state loads every time, each session as before the save or after
// it, and the next save and load give back exactly what was saved.
func TestStateRewriteCrashAtEverySyncPoint(t *testing.T) {
	for stop := 0; ; stop++ {
		done := false
		for seed := range uint64(8) {
			m := vfs.NewMem()
			old := stateOf(t, 60)
			if err := old.Save(m, "origin"); err != nil {
				t.Fatal(err)
			}
			// Lines appended past the sorted part, so that the rewrite's
			// head and journal differ from the first ones.
			for _, i := range []int{3, 30} {
				old.Sessions[nthID(i)].Files[FileItems] = &FileState{End: 3000}
				old.touch(nthID(i))
			}
			if err := old.Save(m, "origin"); err != nil {
				t.Fatal(err)
			}
			old = mustLoad(t, m)
			cur := mustLoad(t, m)
			for i := range 60 {
				cur.Sessions[nthID(i)].Files[FileItems] = &FileState{End: 9000, Tail: "new"}
				cur.touch(nthID(i))
			}
			delete(cur.Pending, nthID(1))
			cur.Pending[nthID(40)] = []Segment{{File: FileItems, Off: 9, Size: 9}}
			cur.Machines["other"] = &MachineState{Seq: 9}
			cur.log.rewrite = true
			m.FailAfterSyncs(stop)
			err := cur.Save(m, "origin")
			m.CrashPartial(rand.New(rand.NewPCG(seed, uint64(stop))))
			if err == nil {
				done = true
			}
			got := mustLoad(t, m)
			if len(got.Sessions) != 60 {
				t.Fatalf("stop %d seed %d: %d sessions after the crash", stop, seed, len(got.Sessions))
			}
			for id, ss := range got.Sessions {
				if !sameJSON(ss, old.Sessions[id]) && !sameJSON(ss, cur.Sessions[id]) {
					t.Fatalf("stop %d seed %d: session %s is neither as before the save nor as after", stop, seed, id)
				}
			}
			if !sameJSON(got.Pending, old.Pending) && !sameJSON(got.Pending, cur.Pending) {
				t.Fatalf("stop %d seed %d: pending segments %v", stop, seed, got.Pending)
			}
			if err == nil && !sameState(got, cur) {
				t.Fatalf("stop %d seed %d: a save that returned did not survive", stop, seed)
			}
			got.Sessions[nthID(9)].Files[FileItems] = &FileState{End: 77}
			got.touch(nthID(9))
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

// TestStatePendingSessionsDoNotCountAsAppended: the lines of sessions
// with pending segments that a whole write puts past the sorted part are
// not appended lines: with more of them than a tail may hold, a save with
// nothing changed writes nothing, and a save of one change appends it.
func TestStatePendingSessionsDoNotCountAsAppended(t *testing.T) {
	m := vfs.NewMem()
	st := stateOf(t, 1200)
	for i := range 1100 {
		st.Pending[nthID(i)] = []Segment{{File: FileItems, Off: 1, Size: 9}}
	}
	if err := st.Save(m, "origin"); err != nil {
		t.Fatal(err)
	}
	journal := must(vfs.ReadFile(m, sessionsName("origin")))
	for range 2 {
		st := must(LoadState(m, "origin", testURL))
		if err := st.Save(m, "origin"); err != nil {
			t.Fatal(err)
		}
		if got := must(vfs.ReadFile(m, sessionsName("origin"))); string(got) != string(journal) {
			t.Fatal("a save with nothing changed wrote the sessions journal")
		}
	}
	st = must(LoadState(m, "origin", testURL))
	mark := st.log.sorted.Mark
	st.session(nthID(1150), "workspaces/w").Files[FileItems].End++
	st.touch(nthID(1150))
	if err := st.Save(m, "origin"); err != nil {
		t.Fatal(err)
	}
	if got := must(vfs.ReadFile(m, sessionsName("origin"))); st.log.sorted.Mark != mark || len(got) <= len(journal) || string(got[:len(journal)]) != string(journal) {
		t.Fatal("a save of one change wrote the journal whole rather than append a line")
	}
	st.wantAll()
	if got := mustLoad(t, m); !sameState(got, st) {
		t.Fatal("the state loaded after the saves differs from the one saved")
	}
}
