package engine

import (
	"context"

	"cairn/engine/internal/convlog"
)

// Compaction replaces an older stretch of the conversation by a summary in
// the request view only (engine/internal/convlog/compact.go says how the stretch is cut).

// Compact appends a compaction item summarising the request view through
// upTo ("" everything before the newest prompt); summary "" makes a plain
// listing summary.
func (s *Session) Compact(ctx context.Context, summary, upTo string) (Item, error) {
	s.mu.Lock()
	path := s.st.HeadPath()
	known := upTo == "" || s.st.Item(upTo) != nil
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
