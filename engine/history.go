package engine

import "cairn/engine/internal/history"

// Prompt history: history.jsonl at the top of the state folder, shared by
// every directory, capped by history.max (package history draws it).

const historyName = history.Name

// History is the prompt history, oldest first. A corrupt or missing file
// gives an empty history.
func (s *Store) History() []string { return history.Last(s.fsys, s.historyMax()) }

func (s *Store) historyMax() int {
	if c, err := s.Config(); err == nil && c.History.Max > 0 {
		return c.History.Max
	}
	return defaultHistoryMax
}

// AddHistory records a submitted prompt typed in dir. An empty prompt, or
// one equal to the newest entry, adds nothing.
func (s *Store) AddHistory(text, dir string) error {
	return s.hist.Add(s.fsys, s.now, s.historyMax(), text, dir)
}

// CancelHistory removes a cancelled prompt again (when it is the newest entry).
func (s *Store) CancelHistory(text string) error {
	return s.hist.Cancel(s.fsys, s.now, s.historyMax(), text)
}

// ClearHistory empties the prompt history.
func (s *Store) ClearHistory() error { return s.hist.Clear(s.fsys, s.now) }
