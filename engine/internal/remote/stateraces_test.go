package remote

import (
	"errors"
	"testing"

	"cairn/internal/vfs"
)

// TestStateSaveAfterJournalRewrittenFails: a state loaded before another
// process wrote the sessions journal whole again cannot read the sorted
// part it loaded; its save fails and writes nothing, whether it would
// have written the journal whole (a session asked for, looked up) or
// appended (a new session), and the journal keeps every session.
func TestStateSaveAfterJournalRewrittenFails(t *testing.T) {
	for _, tc := range []struct {
		name  string
		touch func(st *State)
	}{
		{"lookup", func(st *State) { st.touch(nthID(150)) }},
		{"append", func(st *State) {
			id := nthID(1000)
			st.session(id, "workspaces/w")
			st.touch(id)
		}},
		{"every session", func(st *State) { st.wantAll(); st.touch(nthID(7)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := vfs.NewMem()
			if err := stateOf(t, 300).Save(m, "origin"); err != nil {
				t.Fatal(err)
			}
			a := must(LoadState(m, "origin", testURL))
			b := must(LoadState(m, "origin", testURL))
			b.log.rewrite = true
			if err := b.Save(m, "origin"); err != nil {
				t.Fatal(err)
			}
			before := must(vfs.ReadFile(m, sessionsName("origin")))
			tc.touch(a)
			err := a.Save(m, "origin")
			if !errors.Is(err, errSortedChanged) {
				t.Fatalf("save of a state whose journal was written again: %v, want errSortedChanged", err)
			}
			after := must(vfs.ReadFile(m, sessionsName("origin")))
			if string(after) != string(before) {
				t.Fatal("the failed save changed the sessions journal")
			}
			got := mustLoad(t, m)
			if len(got.Sessions) != 300 || len(got.Cards) != 300 || len(got.Forgotten) != 1 {
				t.Fatalf("reload holds %d sessions, %d cards, %d forgotten; want 300, 300, 1",
					len(got.Sessions), len(got.Cards), len(got.Forgotten))
			}
		})
	}
}

// TestStateDamagedSortedLineIsRewritten: a line of the sorted part that
// does not read is a cache miss: the save writes the journal whole with
// every other session, as before.
func TestStateDamagedSortedLineIsRewritten(t *testing.T) {
	m := vfs.NewMem()
	if err := stateOf(t, 300).Save(m, "origin"); err != nil {
		t.Fatal(err)
	}
	st := must(LoadState(m, "origin", testURL))
	b := must(vfs.ReadFile(m, sessionsName("origin")))
	// Break the id of the sorted part's first line.
	at := st.log.sorted.Start + int64(len(`{"id":"`))
	b[at] = '!'
	if err := vfs.WriteFileAtomic(m, sessionsName("origin"), b); err != nil {
		t.Fatal(err)
	}
	st.wantAll()
	if st.log.lost != nil || !st.log.rewrite {
		t.Fatalf("a damaged line: lost %v, rewrite %v; want nil, true", st.log.lost, st.log.rewrite)
	}
	if err := st.Save(m, "origin"); err != nil {
		t.Fatal(err)
	}
	if got := mustLoad(t, m); len(got.Cards) != 299 {
		t.Fatalf("reload holds %d cards, want 299", len(got.Cards))
	}
}
