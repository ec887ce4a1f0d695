package engine

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Prompts the hooks recorded, met again by an import. A hook's
// UserPromptSubmit writes the prompt as a user item before the agent's
// transcript holds it; importing that transcript later must find the item
// rather than add the prompt twice. The identity, in this order:
//
//   - the agent's own prompt id, when both sides carry it (Claude Code's
//     hook prompt_id, since 2.1.196, and its transcript's promptId): the
//     hook's item id is importItemID(session, "prompt:"+ID), which the
//     import derives again from the transcript line;
//   - else the same text (what the user typed: the transcript's text
//     blocks, not its images; space around it aside) within promptMatchWindow of the transcript
//     line's time, the nearest such item not matched yet, among the
//     session's user items no key of the source makes (hooks' items).
//
// A matched line adds nothing: its key stands for the hook's item, so
// the answers and calls under it in the transcript go under that item.
// The match is made again by every import of the whole file, so it needs
// nothing on disk; a read that starts where the last one stopped (a
// hook's catch-up) is given the matches made before (ImportSource.Prior).
//
// A hook that brings the transcript in as a prompt is submitted meets
// that prompt's own line when the agent wrote it first (Pending): the
// source's last user item is the pending prompt when both carry the
// agent's prompt id and the ids are the same, or, without ids, when its
// text is the prompt's, it is at most promptMatchWindow from it, and it
// is not a prompt the session holds already (the previous prompt, typed
// the same: "continue" twice). That line and what follows it are left
// for the hook, which appends the prompt with its id.

// promptMatchWindow is how far apart a hook's prompt and its transcript
// line may be in time: the hook runs as the prompt is submitted, the
// transcript line is written then too. A hook reading the transcript takes
// a line of the prompt's text this recent for the prompt being submitted.
const promptMatchWindow = 2 * time.Minute

// promptKey is the import key of the agent's prompt id.
func promptKey(promptID string) string { return "prompt:" + promptID }

// AppendPrompt appends the user's prompt text as a user item, as Append
// does; with promptID (the agent's own id of the prompt) the item's id is
// derived from it, so an import of the agent's transcript finds it, and a
// hook that runs twice for one prompt adds it once (the item there is
// returned).
func (s *Session) AppendPrompt(ctx context.Context, text, promptID string) (Item, error) {
	if promptID == "" {
		return s.Append(ctx, Item{Type: User, Text: text})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	id := importItemID(s.st.ID, promptKey(promptID))
	if it := s.st.Items[id]; it != nil {
		if it.Type != User {
			return Item{}, fmt.Errorf("%w: item %s is a %s item", ErrBadInput, id, it.Type)
		}
		return *it, nil
	}
	return s.add(ctx, Item{ID: id, Type: User, Text: text})
}

// PendingPrompt is a prompt an agent is submitting: its text, the agent's
// id of it ("" when the agent sends none), and when it was submitted.
type PendingPrompt struct {
	Text, ID string
	At       time.Time
}

// pendingAt is the index in src.Items of the pending prompt's line (see
// above), or -1.
func pendingAt(st *state, src *ImportSource, idOf func(string) string, now time.Time) int {
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
		if it.Type != User {
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
		if strings.TrimSpace(text) != strings.TrimSpace(p.Text) || it.At.Sub(at).Abs() > promptMatchWindow || st.Items[idOf(it.Key)] != nil {
			return -1
		}
		return i
	}
	return -1
}

// hookPrompts matches src's user items that st lacks to the user items
// the hooks wrote (see above): the key of each matched item, to the id of
// the item that stands for it.
func hookPrompts(st *state, session string, src *ImportSource) map[string]string {
	ours := map[string]bool{} // ids the source's keys make, now or in a read before
	for i := range src.Items {
		ours[importItemID(session, src.Items[i].Key)] = true
	}
	for k, id := range src.Prior {
		ours[importItemID(session, k)], ours[id] = true, true
	}
	var cands []*Item
	for _, id := range st.Order {
		if it := st.Items[id]; it.Type == User && !ours[id] {
			cands = append(cands, it)
		}
	}
	alias := map[string]string{}
	if len(cands) == 0 {
		return alias
	}
	used := map[string]bool{}
	for i := range src.Items {
		in := &src.Items[i]
		if in.Type != User || st.Items[importItemID(session, in.Key)] != nil {
			continue
		}
		if in.PromptID != "" {
			if id := importItemID(session, promptKey(in.PromptID)); st.Items[id] != nil && st.Items[id].Type == User && !used[id] {
				alias[in.Key], used[id] = id, true
				continue
			}
		}
		text := in.PromptText
		if text == "" {
			text = in.Text
		}
		// Space around the text aside, as the prompt hook compares them
		// when it cuts this line from its catch-up (cli/hook_prompt.go).
		text = strings.TrimSpace(text)
		var best *Item
		var bestD time.Duration
		for _, c := range cands {
			d := c.At.Sub(in.At).Abs()
			if used[c.ID] || strings.TrimSpace(c.Text) != text || d > promptMatchWindow || (best != nil && d >= bestD) {
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
