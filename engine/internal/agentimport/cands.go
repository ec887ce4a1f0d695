package agentimport

import (
	"cairn/engine/internal/convlog"
	"cairn/engine/internal/hookrec"
)

// A hook's catch-up brings a few new lines of a transcript into a long
// session: what hookPrompts touches is made at the size of those lines
// and of the session's user items, not of every item the session holds
// or every key an earlier read made (src.Prior: thousands in a long
// session, read at every prompt).

// cand is a user item of the session and its position in the journal.
type cand struct {
	*convlog.Item
	pos int
}

// srcPos is the ids src's items name that st holds, as hookPrompts looks
// them up (the id the key makes, the id Prior gives it, a call's id),
// each at -1: the journal positions hookCands fills in. A catch-up's
// lines are mostly new: then there is none to look for.
func srcPos(st *convlog.State, session string, src *Source) map[string]int {
	pos := map[string]int{}
	add := func(id string) {
		if st.Has(id) {
			pos[id] = -1
		}
	}
	for i := range src.Items {
		in := &src.Items[i]
		add(hookrec.ItemID(session, in.Key))
		if id, ok := src.Prior[in.Key]; ok && id != "" {
			add(id)
		}
		if in.Type == convlog.ToolCall && in.CallID != "" {
			add(CallItem(session, in.CallID))
		}
	}
	return pos
}

// hookCands is the session's user items no key of the source makes, now
// (src.Items) or in a read before (src.Prior's keys and the ids it gives
// them), in journal order: the hooks' prompts a line may stand for. It
// fills in pos, the positions of the ids srcPos named.
func hookCands(st *convlog.State, session string, src *Source, pos map[string]int) []cand {
	// Made at about its size: the user items are mostly the source's
	// lines, each a key of Prior or of this read's items. Their types are
	// asked, not the items: a state read from the hooks' index makes an
	// item only when it is asked for (convlog.Later), here the cands.
	type user struct {
		id  string
		pos int
	}
	users := make([]user, 0, min(len(st.Order), len(src.Prior)+len(src.Items)+8))
	left := len(pos) // ids of pos not met yet
	for i, id := range st.Order {
		if st.TypeOf(id) == convlog.User {
			users = append(users, user{id, i})
		}
		if left > 0 {
			if _, ok := pos[id]; ok {
				pos[id] = i
				left--
			}
		}
	}
	if len(users) == 0 {
		return nil
	}
	// The user items the source's keys make: ticked by the ids, looked
	// up among the users (no id is kept), the keys' ids hashed only while
	// some user item is left.
	at := make(map[string]int, len(users))
	for j, u := range users {
		at[u.id] = j
	}
	ours, n := make([]bool, len(users)), 0
	tick := func(j int, ok bool) {
		if ok && !ours[j] {
			ours[j] = true
			n++
		}
	}
	var b hookrec.IDBuf
	for i := range src.Items {
		j, ok := at[string(b.ItemID(session, src.Items[i].Key))]
		tick(j, ok)
	}
	for _, id := range src.Prior {
		j, ok := at[id]
		tick(j, ok)
	}
	for k := range src.Prior {
		if n == len(users) {
			break
		}
		j, ok := at[string(b.ItemID(session, k))]
		tick(j, ok)
	}
	if n == len(users) {
		return nil
	}
	var cands []cand
	for j, u := range users {
		if !ours[j] {
			cands = append(cands, cand{st.Item(u.id), u.pos})
		}
	}
	return cands
}
