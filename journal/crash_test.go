package journal

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"cairn/internal/vfs"
)

// TestCrashKeepsAcknowledged: under SyncEvery every Append that returned nil
// survives power loss, and so does the journal's folder entry.
func TestCrashKeepsAcknowledged(t *testing.T) {
	m := vfs.NewMem()
	if err := m.MkdirAll("s", vfs.DirPerm); err != nil {
		t.Fatal(err)
	}
	if err := m.SyncDir("."); err != nil {
		t.Fatal(err)
	}
	w, _, err := OpenWriter(m, "s/j.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := range 5 {
		it := newItem(i, "durable")
		if err := w.Append(it); err != nil {
			t.Fatal(err)
		}
		want = append(want, marshal(t, it))
	}
	m.Crash()
	got, st := readAll(t, m, "s/j.jsonl")
	equalLines(t, got, want)
	if st.Torn != 0 {
		t.Fatalf("Torn %d", st.Torn)
	}
	if err := w.Append(newItem(5, "x")); err == nil {
		t.Fatal("Append on a handle from before the crash returned nil")
	}
}

// TestCrashManual: under SyncManual the lines before a Sync that returned
// nil survive; later ones may vanish.
func TestCrashManual(t *testing.T) {
	m := vfs.NewMem()
	w, _, err := OpenWriter(m, "j.jsonl", Options{Sync: SyncManual})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := range 3 {
		it := newItem(i, "turn one")
		if err := w.Append(it); err != nil {
			t.Fatal(err)
		}
		want = append(want, marshal(t, it))
	}
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := w.Append(newItem(3, "not synced")); err != nil {
		t.Fatal(err)
	}
	m.Crash()
	got, _ := readAll(t, m, "j.jsonl")
	equalLines(t, got, want)
}

// TestCrashPartial: many power losses at random points, each keeping a
// random share of what was not synced. Every synced line survives; every
// complete line read is one that was appended, in order; a reopened writer
// cuts what was torn and goes on.
func TestCrashPartial(t *testing.T) {
	seeds := 300
	if testing.Short() {
		seeds = 50
	}
	for seed := range uint64(seeds) {
		r := rand.New(rand.NewPCG(seed, 7))
		m := vfs.NewMem()
		m.SetClock(fixedNow)
		opt := Options{Sync: SyncManual, Now: fixedNow}
		if seed%3 == 0 {
			opt.Sync = SyncEvery
		}
		w, _, err := OpenWriter(m, "j.jsonl", opt)
		if err != nil {
			t.Fatal(err)
		}
		var appended []string
		acked := 0
		for i := range r.IntN(20) {
			it := newItem(i, strings.Repeat(fmt.Sprint(i), r.IntN(300)))
			if err := w.Append(it); err != nil {
				t.Fatal(err)
			}
			appended = append(appended, marshal(t, it))
			if opt.Sync == SyncEvery {
				acked = len(appended)
			} else if r.IntN(3) == 0 {
				if err := w.Sync(); err != nil {
					t.Fatal(err)
				}
				acked = len(appended)
			}
		}
		m.CrashPartial(r)

		got, st := readAll(t, m, "j.jsonl")
		if len(got) < acked || len(got) > len(appended) {
			t.Fatalf("seed %d: read %d lines; %d acknowledged, %d appended", seed, len(got), acked, len(appended))
		}
		equalLines(t, got, appended[:len(got)])
		if len(st.Bad) != 0 {
			t.Fatalf("seed %d: bad lines %+v", seed, st.Bad)
		}

		w, rep, err := OpenWriter(m, "j.jsonl", opt)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Cut != st.Torn {
			t.Fatalf("seed %d: Cut %d, Torn was %d", seed, rep.Cut, st.Torn)
		}
		want := got
		if rep.Cut > 0 {
			want = append(want, repairText(rep.Cut))
		}
		it := newItem(99, "after")
		if err := w.Append(it); err != nil {
			t.Fatal(err)
		}
		if err := w.Sync(); err != nil {
			t.Fatal(err)
		}
		m.Crash()
		got, _ = readAll(t, m, "j.jsonl")
		equalLines(t, got, append(want, marshal(t, it)))
	}
}

// TestCloseUnsynced: CloseUnsynced leaves the lines appended since the last
// Sync to whoever syncs the file later; Close syncs them.
func TestCloseUnsynced(t *testing.T) {
	m := vfs.NewMem()
	if err := m.SyncDir("."); err != nil {
		t.Fatal(err)
	}
	open := func() *Writer {
		w, _, err := OpenWriter(m, "j.jsonl", Options{Sync: SyncManual})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	w := open()
	first := newItem(0, "synced")
	if err := w.Append(first); err != nil {
		t.Fatal(err)
	}
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := w.Append(newItem(1, "left unsynced")); err != nil {
		t.Fatal(err)
	}
	if err := w.CloseUnsynced(); err != nil {
		t.Fatal(err)
	}
	if err := w.Append(newItem(2, "after close")); err == nil {
		t.Fatal("append after CloseUnsynced succeeded")
	}
	m.Crash()
	got, _ := readAll(t, m, "j.jsonl")
	equalLines(t, got, []string{marshal(t, first)})
	// Close, by contrast, syncs what was appended.
	w = open()
	second := newItem(3, "closed")
	if err := w.Append(second); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	m.Crash()
	got, _ = readAll(t, m, "j.jsonl")
	equalLines(t, got, []string{marshal(t, first), marshal(t, second)})
}
