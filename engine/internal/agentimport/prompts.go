package agentimport

import (
	"strings"
	"time"

	"cairn/engine/internal/convlog"
	"cairn/engine/internal/hookrec"
)

// PromptWindow is how far apart a hook's prompt and its transcript line
// may be in time: the hook runs as the prompt is submitted, the
// transcript line is written then too. A hook reading the transcript takes
// a line of the prompt's text this recent for the prompt being submitted.
const PromptWindow = 2 * time.Minute

// PromptKey is the import key of the agent's prompt id.
func PromptKey(promptID string) string { return "prompt:" + promptID }

// pendingAt is the index in src.Items of the pending prompt's line (see
// the package doc), or -1.
func pendingAt(st *convlog.State, src *Source, idOf func(string) string, now time.Time) int {
	p := src.Pending
	if p == nil {
		return -1
	}
	at := p.At
	if at.IsZero() {
		at = now
	}
	for i := len(src.Items) - 1; i >= 0; i-- {
		it := &src.Items[i]
		if it.Type != convlog.User {
			continue
		}
		if p.ID != "" && it.PromptID != "" {
			if p.ID == it.PromptID {
				return i
			}
			return -1
		}
		text := it.PromptText
		if text == "" {
			text = it.Text
		}
		if strings.TrimSpace(text) != strings.TrimSpace(p.Text) || it.At.Sub(at).Abs() > PromptWindow || st.Item(idOf(it.Key)) != nil {
			return -1
		}
		return i
	}
	return -1
}

// hookPrompts matches src's user items that st lacks to the user items
// the hooks wrote (see the package doc): the key of each matched item, to
// the id of the item that stands for it.
//
// A hook's catch-up runs it on a long session at every prompt: it makes
// no map of the session's items nor of src.Prior's, only of the user
// items (cands) and of the ids src's items name (srcPos).
func hookPrompts(st *convlog.State, session string, src *Source) map[string]string {
	alias := map[string]string{}
	// The journal positions of the ids src's items make or are given,
	// found in the one pass over the journal that finds the user items.
	pos := srcPos(st, session, src)
	cands := hookCands(st, session, src, pos)
	if len(cands) == 0 {
		return alias
	}
	// A hook's prompt is recorded before what the transcript has after
	// that prompt's line: a candidate the session has after an item the
	// source has after the line is a later prompt, however near in time
	// (the same text typed again after a short turn). before[i] is the
	// journal position of the first item the session holds of those after
	// src.Items[i].
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
			if p, ok := pos[id]; ok && p >= 0 && id != "" && p < next {
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
		for _, cd := range cands {
			c := cd.Item
			d := c.At.Sub(in.At).Abs()
			if used[c.ID] || cd.pos >= before[i] || strings.TrimSpace(c.Text) != text || d > PromptWindow || (best != nil && d >= bestD) {
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
