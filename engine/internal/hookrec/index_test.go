package hookrec

import (
	"bytes"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"cairn/engine/internal/convlog"
	"cairn/internal/timefmt"
	"cairn/internal/vfs"
)

// entries is ix's items, in the order their lines were written (a later
// entry of an id counting the earlier one stale), or the test fails.
func entries(t *testing.T, ix *Index) []Entry {
	t.Helper()
	out := make([]Entry, 0, ix.n)
	seen := make(map[string]bool, ix.n)
	err := ix.eachLine(func(_ int, line string) error {
		e, err := parseEntry(line)
		if err != nil {
			return err
		}
		if seen[e.ID] {
			ix.stale += int64(len(line) + 1)
		}
		seen[e.ID] = true
		out = append(out, e)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// An index reads as its whole batches, a later entry of an id winning; a
// batch a crash cut short is not read, and the next one goes in its
// place. Against its journal it is current, behind (the journal went on),
// or disagrees (the journal is shorter, or other bytes).
func TestIndexBatchesAndAgreement(t *testing.T) {
	fsys := vfs.NewMem()
	journal := bytes.Repeat([]byte(`{"v":1,"kind":"item"}`+"\n"), 1000)
	if err := vfs.WriteFileAtomic(fsys, "j", journal[:8000]); err != nil {
		t.Fatal(err)
	}
	sum := func(n int64) string {
		s, err := Sum(bytes.NewReader(journal), n)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	u := Entry{ID: "i-1", Type: "user", At: "2026-12-04T10:00:00.000Z", Text: "a\ttab and a \"quote\"\n"}
	first := Batch([]Entry{u, {ID: "i-2", Type: "assistant", Parent: "i-1"}}, 4000, sum(4000), []byte(`{"a":1}`))
	if err := WriteIndex(fsys, "x", first); err != nil {
		t.Fatal(err)
	}
	ix, err := ReadIndex(fsys, "x")
	if err != nil || len(entries(t, ix)) != 2 || entries(t, ix)[0] != u || string(ix.State) != `{"a":1}` {
		t.Fatalf("%+v %v", ix, err)
	}
	if ag, _, _ := ix.Check(fsys, "j"); ag != Behind {
		t.Fatalf("an index of 4000 of 8000 bytes: %v, want behind", ag)
	}
	at, ok := ix.Appendable()
	if !ok || at != int64(len(first)) {
		t.Fatalf("appendable at %d %v", at, ok)
	}
	// A cut batch: not read.
	cut := append(bytes.Clone(first), "i\ti-3\tassistant\ti-2\t\t\n{\"v\":1,\"si"...)
	vfs.WriteFileAtomic(fsys, "x", cut)
	if ix, err := ReadIndex(fsys, "x"); err != nil || len(entries(t, ix)) != 2 || ix.Size != 4000 {
		t.Fatalf("a cut batch was read: %+v %v", ix, err)
	}
	// The next batch goes in its place.
	next := Batch([]Entry{{ID: "i-3", Type: "tool_call", Parent: "i-2"}}, 8000, sum(8000), []byte(`{"a":2}`))
	if err := AppendIndex(fsys, "x", at, next); err != nil {
		t.Fatal(err)
	}
	b, _ := vfs.ReadFile(fsys, "x")
	if !bytes.Equal(b, append(bytes.Clone(first), next...)) {
		t.Fatalf("the index after the batch:\n%s", b)
	}
	ix, err = ReadIndex(fsys, "x")
	if err != nil || len(entries(t, ix)) != 3 || entries(t, ix)[2].Type != "tool_call" || string(ix.State) != `{"a":2}` {
		t.Fatalf("%+v %v", ix, err)
	}
	if ag, _, _ := ix.Check(fsys, "j"); ag != Current {
		t.Fatalf("%v, want current", ag)
	}
	// A journal cut short, or rewritten near its start: disagrees.
	vfs.WriteFileAtomic(fsys, "j", journal[:7000])
	if ag, _, _ := ix.Check(fsys, "j"); ag != Disagrees {
		t.Fatalf("a shorter journal: %v", ag)
	}
	other := bytes.Clone(journal[:9000])
	other[100] ^= 1
	vfs.WriteFileAtomic(fsys, "j", other)
	if ag, _, _ := ix.Check(fsys, "j"); ag != Disagrees {
		t.Fatalf("a rewritten journal: %v", ag)
	}
	// No index, and an index of no whole batch.
	if _, err := ReadIndex(fsys, "none"); err != ErrNoIndex {
		t.Fatalf("missing: %v", err)
	}
	vfs.WriteFileAtomic(fsys, "y", []byte("i\ti-1\tuser\t\t\t\n"))
	if _, err := ReadIndex(fsys, "y"); err != ErrNoIndex {
		t.Fatalf("no batch: %v", err)
	}
}

// Reading an index into a state costs a fixed number of allocations,
// whatever the number of its items: a prompt hook reads it whole at every
// prompt, and a long session's holds thousands (one string for the file's
// text, each field a part of it; the order and the places made at their
// size; no item made until it is asked for).
func TestReadIndexAllocsDoNotGrow(t *testing.T) {
	allocs := func(n int) float64 {
		fsys := vfs.NewMem()
		var items []Entry
		for i := range n {
			e := Entry{ID: "i-" + strconv.Itoa(i), Type: "assistant", Parent: "i-" + strconv.Itoa(i-1)}
			if i == 0 {
				e.Parent = ""
			}
			if i%10 == 0 {
				e = Entry{ID: e.ID, Type: "user", Parent: e.Parent, At: "2026-12-04T10:00:00.000Z", Text: "a prompt"}
			}
			items = append(items, e)
		}
		// Two batches, so the later one's JSON line is not the only one.
		b := Batch(items[:n/2], 10, "s", []byte(`{}`))
		b = append(b, Batch(items[n/2:], 20, "s", []byte(`{}`))...)
		if err := WriteIndex(fsys, "x", b); err != nil {
			t.Fatal(err)
		}
		return testing.AllocsPerRun(5, func() {
			ix, err := ReadIndex(fsys, "x")
			if err != nil {
				t.Fatalf("%d items: %v", n, err)
			}
			var st convlog.State
			if err := FromIndex(&st, ix); err != nil || len(st.Order) != n {
				t.Fatalf("%d items: %d read, %v", n, len(st.Order), err)
			}
		})
	}
	small, large := allocs(500), allocs(5000)
	if large-small > 20 {
		t.Fatalf("reading an index of 500 items takes %.0f allocations, of 5,000 items %.0f", small, large)
	}
}

// The lines a later batch wrote again are counted as the index is read
// into a state: an index mostly of them is written again whole, not
// appended to.
func TestIndexOverwrittenLinesCounted(t *testing.T) {
	fsys := vfs.NewMem()
	items := []Entry{{ID: "i-1", Type: "user", At: "-", Text: "go"}, {ID: "i-2", Type: "assistant", Parent: "i-1"}}
	var b []byte
	for range 4 {
		b = append(b, Batch(items, 10, "s", []byte(`{}`))...)
	}
	if err := WriteIndex(fsys, "x", b); err != nil {
		t.Fatal(err)
	}
	ix, err := ReadIndex(fsys, "x")
	if err != nil {
		t.Fatal(err)
	}
	var st convlog.State
	if err := FromIndex(&st, ix); err != nil || len(st.Order) != 2 {
		t.Fatalf("%v %v", st.Order, err)
	}
	if at, ok := ix.Appendable(); ok || at != int64(len(b)) {
		t.Fatalf("an index of the same two items four times: appendable at %d %v, want written whole", at, ok)
	}
}

// A state read from an index makes each item when it is first asked for,
// and answers as one with every item made: the last line of an id is its
// item, in the order of the first, with its links, type, text and time.
func TestFromIndexMakesItemsAsAsked(t *testing.T) {
	fsys := vfs.NewMem()
	at := "2026-12-04T10:00:00.5Z"
	first := []Entry{{ID: "i-1", Type: "user", At: at, Text: "go\tthere"}, {ID: "i-2", Type: "tool_call", Parent: "i-1"},
		{ID: "i-3", Type: "tool_result", Parent: "i-2", Call: "i-2"}}
	// The later batch writes i-2 again (with a task) and adds two items.
	later := []Entry{{ID: "i-2", Type: "tool_call", Parent: "i-1", Task: "t-1"}, {ID: "i-4", Type: "assistant", Parent: "i-3"},
		{ID: "i-5", Type: "user", Parent: "i-4", At: "-", Text: "again"}}
	b := append(Batch(first, 10, "s", []byte(`{"head":"i-5"}`)), Batch(later, 20, "s", []byte(`{"head":"i-5"}`))...)
	if err := WriteIndex(fsys, "x", b); err != nil {
		t.Fatal(err)
	}
	ix, err := ReadIndex(fsys, "x")
	if err != nil {
		t.Fatal(err)
	}
	st := convlog.NewState("s", "/w")
	if err := FromIndex(st, ix); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(st.Order, []string{"i-1", "i-2", "i-3", "i-4", "i-5"}) || st.Len() != 5 || st.Made() != 0 {
		t.Fatalf("order %v, %d items, %d made before any was asked for", st.Order, st.Len(), st.Made())
	}
	if st.TypeOf("i-3") != convlog.ToolResult || !st.Has("i-4") || st.Has("i-9") || st.TypeOf("i-9") != "" || st.Made() != 0 {
		t.Fatalf("types and presence made items: %d made", st.Made())
	}
	want := map[string]convlog.Item{
		"i-1": {ID: "i-1", Type: convlog.User, Text: "go\tthere", At: timefmt.Mk(time.Date(2026, 12, 4, 10, 0, 0, 5e8, time.UTC))},
		"i-2": {ID: "i-2", Type: convlog.ToolCall, Parent: "i-1", Task: "t-1"},
		"i-3": {ID: "i-3", Type: convlog.ToolResult, Parent: "i-2", Call: "i-2"},
		"i-4": {ID: "i-4", Type: convlog.Assistant, Parent: "i-3"},
		"i-5": {ID: "i-5", Type: convlog.User, Parent: "i-4", Text: "again"},
	}
	for n, id := range []string{"i-3", "i-1", "i-5", "i-2", "i-4"} {
		it := st.Item(id)
		if it == nil || !reflect.DeepEqual(*it, want[id]) {
			t.Fatalf("%s = %+v, want %+v", id, it, want[id])
		}
		if st.Item(id) != it || st.Made() != n+1 || st.Len() != 5 {
			t.Fatalf("%s asked again: made anew, or %d made, %d items", id, st.Made(), st.Len())
		}
	}
	// A line folded after the index stands in place of the item, in its
	// place in the order.
	if err := st.Fold(&convlog.Line{V: 1, Kind: convlog.KindItem, ID: "i-4", Type: convlog.Assistant, Text: ptr("edited")}); err != nil {
		t.Fatal(err)
	}
	if st.Item("i-4").Text != "edited" || len(st.Order) != 5 || st.Len() != 5 {
		t.Fatalf("a folded line: %q, order %v, %d items", st.Item("i-4").Text, st.Order, st.Len())
	}
}

// An index whose lines do not hang together, or that holds a line that
// cannot be read, is refused as it is read, not when an item is asked for.
func TestFromIndexRefusesBadLines(t *testing.T) {
	for name, entries := range map[string][]Entry{
		"unknown parent": {{ID: "i-1", Type: "user", At: "-"}, {ID: "i-2", Type: "assistant", Parent: "i-0"}},
		"unknown type":   {{ID: "i-1", Type: "user", At: "-"}, {ID: "i-2", Type: "banana", Parent: "i-1"}},
		"bad time":       {{ID: "i-1", Type: "user", At: "yesterday"}},
	} {
		fsys := vfs.NewMem()
		if err := WriteIndex(fsys, "x", Batch(entries, 10, "s", []byte(`{}`))); err != nil {
			t.Fatal(err)
		}
		ix, err := ReadIndex(fsys, "x")
		if err != nil {
			t.Fatal(err)
		}
		if err := FromIndex(convlog.NewState("s", "/w"), ix); err == nil {
			t.Errorf("%s: read", name)
		}
	}
}

func ptr[T any](v T) *T { return &v }
