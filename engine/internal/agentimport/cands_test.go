package agentimport

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"cairn/engine/internal/convlog"
	"cairn/engine/internal/hookrec"
	"cairn/internal/timefmt"
)

// hookPrompts makes no map of the whole session nor of src.Prior (a
// catch-up of a long session runs it at every prompt), and matches as it
// did when it made them: the same matches as hookPromptsBefore (below, as
// it was) over random sessions, sources and earlier reads, the same text
// typed again, prompts with and without the agent's id, lines already
// brought in, calls.
func TestHookPromptsMatchAsBefore(t *testing.T) {
	const session = "s-1"
	texts := []string{"continue", " continue\n", "fix it", "go on"}
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	differ := 0
	for seed := range uint64(3000) {
		r := rand.New(rand.NewPCG(seed, 29))
		st := convlog.NewState("s", "/w")
		src := &Source{Prior: map[string]string{}}
		at := t0
		add := func(id string, typ convlog.ItemType, text string) {
			if st.Has(id) {
				return
			}
			st.SetItem(&convlog.Item{ID: id, Type: typ, Text: text, At: timefmt.Mk(at)})
			st.Order = append(st.Order, id)
		}
		n := r.IntN(30)
		for i := range n {
			at = at.Add(time.Duration(r.IntN(90)) * time.Second)
			key := fmt.Sprint("k", i)
			text := texts[r.IntN(len(texts))]
			typ := []convlog.ItemType{convlog.User, convlog.Assistant, convlog.ToolCall}[r.IntN(3)]
			// How the session holds the line: brought in before (by its
			// key, known to Prior or not), as a hook's prompt (Prior's
			// alias, or not yet matched: with the agent's id or not), or
			// not at all (the source's lines of this read).
			inSrc := i >= n/2 || r.IntN(8) == 0
			item := Item{Key: key, Type: typ, Text: text, At: at.Add(time.Duration(r.IntN(5)-2) * time.Second)}
			if typ == convlog.User && r.IntN(3) == 0 {
				item.PromptID = fmt.Sprint("pid", r.IntN(n+1))
			}
			if typ == convlog.ToolCall && r.IntN(2) == 0 {
				item.CallID = fmt.Sprint("call", i)
			}
			switch r.IntN(5) {
			case 0:
				add(hookrec.ItemID(session, key), typ, text)
				if r.IntN(2) == 0 {
					src.Prior[key] = hookrec.ItemID(session, key)
				}
			case 1:
				if typ == convlog.User {
					hook := fmt.Sprint("hook-", i)
					add(hook, convlog.User, text)
					if r.IntN(3) > 0 && (!inSrc || r.IntN(2) == 0) {
						src.Prior[key] = hook // a line read again
					}
				}
			case 2:
				if typ == convlog.User {
					id := hookrec.ItemID(session, PromptKey(fmt.Sprint("pid", r.IntN(n+1))))
					add(id, convlog.User, text)
				}
			case 3:
				if item.CallID != "" {
					add(CallItem(session, item.CallID), typ, text)
					if r.IntN(2) == 0 {
						src.Prior[key] = CallItem(session, item.CallID)
					}
				}
			}
			if inSrc {
				src.Items = append(src.Items, item)
			}
		}
		// Prior keys no item of this read has, some of them a key that
		// made a user item of the session.
		for i := range r.IntN(4) {
			key := fmt.Sprint("old", i)
			if r.IntN(2) == 0 {
				add(hookrec.ItemID(session, key), convlog.User, texts[r.IntN(len(texts))])
			}
			src.Prior[key] = fmt.Sprint("hook-old", i)
		}
		want := hookPromptsBefore(st, session, src)
		got := hookPrompts(st, session, src)
		if !maps.Equal(got, want) {
			t.Fatalf("seed %d: matches %v, before %v", seed, got, want)
		}
		if len(want) > 0 {
			differ++
		}
	}
	if differ < 300 {
		t.Fatalf("only %d of 3000 cases matched a prompt: the cases do not test the matching", differ)
	}
}

// hookPromptsBefore is hookPrompts as it was, with maps of every item of
// the session and every key of src.Prior: what the test above holds it to.
func hookPromptsBefore(st *convlog.State, session string, src *Source) map[string]string {
	// ids the source's keys make, now or in a read before: made at its
	// size (a long session's catch-up knows thousands of keys).
	ours := make(map[string]bool, len(src.Items)+2*len(src.Prior))
	for i := range src.Items {
		ours[hookrec.ItemID(session, src.Items[i].Key)] = true
	}
	for k, id := range src.Prior {
		ours[hookrec.ItemID(session, k)], ours[id] = true, true
	}
	var cands []*convlog.Item
	for _, id := range st.Order {
		if it := st.Item(id); it.Type == convlog.User && !ours[id] {
			cands = append(cands, it)
		}
	}
	alias := map[string]string{}
	if len(cands) == 0 {
		return alias
	}
	// A hook's prompt is recorded before what the transcript has after
	// that prompt's line: a candidate the session has after an item the
	// source has after the line is a later prompt, however near in time
	// (the same text typed again after a short turn). before[i] is the
	// journal position of the first item the session holds of those after
	// src.Items[i].
	pos := make(map[string]int, len(st.Order))
	for i, id := range st.Order {
		pos[id] = i
	}
	before := make([]int, len(src.Items))
	next := len(st.Order)
	for i := len(src.Items) - 1; i >= 0; i-- {
		before[i] = next
		in := &src.Items[i]
		ids := []string{hookrec.ItemID(session, in.Key), src.Prior[in.Key]}
		if in.Type == convlog.ToolCall && in.CallID != "" {
			ids = append(ids, CallItem(session, in.CallID))
		}
		for _, id := range ids {
			if p, ok := pos[id]; ok && id != "" && p < next {
				next = p
			}
		}
	}
	used := map[string]bool{}
	for i := range src.Items {
		in := &src.Items[i]
		if in.Type != convlog.User || st.Item(hookrec.ItemID(session, in.Key)) != nil {
			continue
		}
		if in.PromptID != "" {
			if id := hookrec.ItemID(session, PromptKey(in.PromptID)); st.Item(id) != nil && st.Item(id).Type == convlog.User && !used[id] {
				alias[in.Key], used[id] = id, true
				continue
			}
		}
		text := in.PromptText
		if text == "" {
			text = in.Text
		}
		// Space around the text aside, as the prompt hook compares them
		// when it cuts this line from its catch-up (cli/hookcmd/prompt.go).
		text = strings.TrimSpace(text)
		var best *convlog.Item
		var bestD time.Duration
		for _, c := range cands {
			d := c.At.Sub(in.At).Abs()
			if used[c.ID] || pos[c.ID] >= before[i] || strings.TrimSpace(c.Text) != text || d > PromptWindow || (best != nil && d >= bestD) {
				continue
			}
			best, bestD = c, d
		}
		if best != nil {
			alias[in.Key], used[best.ID] = best.ID, true
		}
	}
	return alias
}
