package engine

import (
	"context"
	"fmt"
	"strings"
)

// Compaction replaces an older stretch of the conversation by a summary in
// the request view only: a compaction item, appended at the head, names the
// first and last item it replaces. The transcript and the record keep every
// item, so the replaced stretch stays readable (Archive). The cut never
// lands between a tool call and its results.

// Compact appends a compaction item summarising the head path from its
// start (or the previous compaction) through upTo. upTo "" means everything
// before the newest user prompt; summary "" makes a plain listing summary.
func (s *Session) Compact(ctx context.Context, summary, upTo string) (Item, error) {
	s.mu.Lock()
	path := s.st.headPath()
	s.mu.Unlock()
	// A new stretch starts after the last one already compacted.
	start := 0
	for _, it := range path {
		if it.Type == Compaction && len(it.Replaces) == 2 {
			for i, o := range path {
				if o.ID == it.Replaces[1] && i+1 > start {
					start = i + 1
				}
			}
		}
	}
	end := -1
	if upTo == "" {
		for i := len(path) - 1; i >= start; i-- {
			if path[i].Type == User {
				end = i - 1
				break
			}
		}
	} else {
		for i := start; i < len(path); i++ {
			if path[i].ID == upTo {
				end = i
			}
		}
		if end < 0 {
			return Item{}, fmt.Errorf("%w: item %q is not on the head path after the last compaction", ErrBadInput, upTo)
		}
	}
	// Never separate a call from its results.
	calls := map[string]bool{}
	for i := start; i <= end && i < len(path); i++ {
		switch path[i].Type {
		case ToolCall:
			calls[path[i].ID] = true
		case Compaction:
			return Item{}, fmt.Errorf("%w: the stretch would include a compaction item", ErrBadInput)
		}
	}
	for end+1 < len(path) && path[end+1].Type == ToolResult && calls[path[end+1].Call] {
		end++
	}
	if end < start {
		return Item{}, fmt.Errorf("%w: nothing to compact", ErrRefused)
	}
	stretch := path[start : end+1]
	if summary == "" {
		summary = plainSummary(stretch)
	}
	return s.Append(ctx, Item{Type: Compaction, Text: summary, Replaces: []string{stretch[0].ID, stretch[len(stretch)-1].ID}})
}

// plainSummary lists the prompts of a stretch when no model summarised it.
func plainSummary(items []*Item) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Compacted %d items.", len(items))
	for _, it := range items {
		if it.Type == User {
			fmt.Fprintf(&b, "\n- asked: %s", titleFromPrompt(it.Text))
		}
	}
	return b.String()
}

// RequestView is the head path as a model request sees it: each compacted
// stretch replaced by its compaction item.
func (s *Session) RequestView() []Item {
	s.mu.Lock()
	defer s.mu.Unlock()
	return copyItems(requestView(s.st.headPath()))
}

func requestView(path []*Item) []*Item {
	out := make([]*Item, 0, len(path))
	for _, it := range path {
		if it.Type == Compaction && len(it.Replaces) == 2 {
			first, last := -1, -1
			for i, o := range out {
				if o.ID == it.Replaces[0] {
					first = i
				}
				if o.ID == it.Replaces[1] {
					last = i
				}
			}
			if first >= 0 && last >= first {
				rest := append([]*Item{it}, out[last+1:]...)
				out = append(out[:first], rest...)
				continue
			}
		}
		out = append(out, it)
	}
	return out
}

// Archive is the stretch a compaction item replaced, read from the
// conversation, which keeps it.
func (s *Session) Archive(compaction string) ([]Item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.st.items[compaction]
	if c == nil || c.Type != Compaction || len(c.Replaces) != 2 {
		return nil, fmt.Errorf("%w: %q is not a compaction item", ErrNotFound, compaction)
	}
	path := s.st.pathTo(c.Parent)
	var out []*Item
	in := false
	for _, it := range path {
		if it.ID == c.Replaces[0] {
			in = true
		}
		if in {
			out = append(out, it)
		}
		if it.ID == c.Replaces[1] {
			break
		}
	}
	return copyItems(out), nil
}
