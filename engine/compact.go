package engine

import (
	"context"

	"cairn/engine/internal/convlog"
)

// Compaction replaces an older stretch of the conversation by a summary in
// the request view only (engine/internal/convlog/compact.go says how the stretch is cut).

// Compact appends a compaction item summarising the request view from its
// start (an earlier summary included) through upTo. upTo "" means
// everything before the newest user prompt; summary "" makes a plain
// listing summary.
func (s *Session) Compact(ctx context.Context, summary, upTo string) (Item, error) {
	s.mu.Lock()
	path := s.st.HeadPath()
	known := upTo == "" || s.st.Items[upTo] != nil
	s.mu.Unlock()
	if !known {
		return Item{}, noItem(upTo, s.st.ID) // names nothing: not found, as elsewhere
	}
	stretch, err := convlog.CompactStretch(path, upTo)
	if err != nil {
		return Item{}, err
	}
	if summary == "" {
		summary = convlog.PlainSummary(stretch)
	}
	it, err := s.Append(ctx, Item{Type: Compaction, Text: summary, Replaces: []string{stretch[0].ID, stretch[len(stretch)-1].ID}})
	if err == nil {
		s.remind(ctx, true) // the turns that started running work left the request view
	}
	return it, err
}

// requestView is the head path as a model request sees it: each compacted
// stretch replaced by its compaction item.
func (s *Session) requestView() []Item {
	s.mu.Lock()
	defer s.mu.Unlock()
	return copyItems(convlog.RequestView(s.st.HeadPath()))
}

// archive is the stretch a compaction item replaced, read from the
// conversation, which keeps it: the request view as it stood before the
// compaction, from the first through the last item it names. A stretch that
// begins with an earlier compaction item holds that summary; its own
// Archive holds what it replaced.
func (s *Session) archive(compaction string) ([]Item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.st.Items[compaction]
	if c == nil || c.Type != Compaction || len(c.Replaces) != 2 {
		return nil, notFoundf("%q is not a compaction item", compaction)
	}
	if a := s.st.Archive(c); a != nil {
		return copyItems(a), nil
	}
	return nil, nil
}
