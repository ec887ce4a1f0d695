package importer

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"
)

// A State parsed from its kept form looks its tips up in the entries'
// text: each uuid's tip is the one its last entry wrote (a later batch
// wins), whatever the uuid holds (tabs, a leading quote) and wherever
// its line is (the first of the text too), a tip set since wins over the
// text, and a uuid the mark lacks has none. Many such look-ups parse the
// text once; the answers stay the same.
func TestTipsLookedUpInTheText(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	want := map[string]string{}
	uuid := func(i int) string {
		switch i % 7 {
		case 3:
			return fmt.Sprintf("\"q%d", i) // written quoted
		case 5:
			return fmt.Sprintf("t\t%d", i) // a tab, and a "t" of its own
		}
		return fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
	}
	st := &State{V: 1, Agent: AgentClaudeCode, Path: "/t.jsonl", Offset: 1, Sum: "x", CC: newCCState(), Aliases: map[string]string{}}
	set := func(st *State, u, k string) {
		st.CC.setTip(u, k)
		want[u] = k
	}
	for i := range 300 {
		k := []string{uuid(i), "", "k" + uuid(i)}[i%3] // "=", "-", a key
		set(st, uuid(i), k)
	}
	kept := st.Marshal()
	for range 4 { // batches, each writing some tips again
		next, err := ParseState(kept)
		if err != nil {
			t.Fatal(err)
		}
		for range 50 {
			i := r.IntN(400)
			set(next, uuid(i), fmt.Sprintf("b%d", r.IntN(1000)))
		}
		kept = append(kept, next.MarshalBatch()...)
	}
	last, err := ParseState(kept) // a batch of the newest lines
	if err != nil {
		t.Fatal(err)
	}
	for i := 1000; i < 1010; i++ {
		set(last, uuid(i), "n"+uuid(i))
	}
	kept = append(kept, last.MarshalBatch()...)
	got, err := ParseState(kept)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 500 { // each read from the text; the last 100 not in the mark
		one, _ := ParseState(kept)
		k, ok := one.CC.Tip.get(uuid(i))
		if w, wok := want[uuid(i)]; k != w || ok != wok {
			t.Fatalf("tip of %q: %q %v, want %q %v", uuid(i), k, ok, w, wok)
		}
	}
	got.CC.setTip(uuid(1), "since")
	want[uuid(1)] = "since"
	for i := range 500 {
		k, ok := got.CC.Tip.get(uuid(i))
		if w, wok := want[uuid(i)]; k != w || ok != wok {
			t.Fatalf("tip of %q: %q %v, want %q %v", uuid(i), k, ok, w, wok)
		}
	}
	if got.CC.Tip.text != "" {
		t.Fatal("100 look-ups of uuids the mark lacks did not parse the text")
	}
	if !maps.Equal(got.CC.Tip.all(), want) {
		t.Fatal("the tips parsed are not those written")
	}
	// Look-ups of the newest lines read the text where they are.
	few, _ := ParseState(kept)
	for i := 1000; i < 1010; i++ {
		if k, _ := few.CC.Tip.get(uuid(i)); k != want[uuid(i)] {
			t.Fatalf("tip of %q: %q, want %q", uuid(i), k, want[uuid(i)])
		}
	}
	if few.CC.Tip.text == "" {
		t.Fatal("ten look-ups of the newest lines parsed the whole text")
	}
}
