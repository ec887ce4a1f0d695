package engine

import (
	"context"

	"cairn/engine/internal/config"
	"cairn/engine/internal/convlog"
)

// These read a session's or a configuration's state for the tests only: the
// engine itself never asks them.

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
	c := s.st.Item(compaction)
	if c == nil || c.Type != Compaction || len(c.Replaces) != 2 {
		return nil, notFoundf("%q is not a compaction item", compaction)
	}
	if a := s.st.Archive(c); a != nil {
		return copyItems(a), nil
	}
	return nil, nil
}

// parseConfig parses config.json strictly.
func parseConfig(b []byte) (Config, error) { return config.Parse(b) }

// canUnrevert reports whether Unrevert would do something.
func (s *Session) canUnrevert() bool {
	s.mu.Lock()
	back := s.st.RevertFrom
	s.mu.Unlock()
	if back != "" {
		return true
	}
	pending, _ := s.ws.pendingRevert(context.Background(), s.st.ID)
	return pending
}
