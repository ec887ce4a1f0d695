package term

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// search is Ctrl-R, the reverse search of the prompt history, as a shell's
// readline does it: typed text narrows the search to the newest entry that
// holds it, Ctrl-R again goes to an older one (Ctrl-S back to a newer one),
// Enter sends the entry found, Esc (or a key that moves or edits) takes it
// into the line to edit, and Ctrl-G or Ctrl-C puts the line back as it was.
type search struct {
	query   string
	entries []string // the history, oldest first, when the search began
	at      int      // the entry found, -1 when none yet
	off     int      // where the query is in it
	failed  bool     // the query is in no entry (from where the search went)
}

func startSearch(l *lineEdit) *search {
	l.e.mu.Lock()
	entries := l.e.hist.list()
	l.e.mu.Unlock()
	return &search{entries: entries, at: -1}
}

// find looks for the query in the entries from index from, going older
// (dir -1) or newer (dir 1); it keeps the entry found before when there is
// none.
func (s *search) find(from, dir int) {
	for i := from; i >= 0 && i < len(s.entries); i += dir {
		if j := strings.Index(s.entries[i], s.query); j >= 0 {
			s.at, s.off, s.failed = i, j, false
			return
		}
	}
	s.failed = true
}

// add appends typed or pasted text to the query and searches again from
// the entry in view.
func (s *search) add(l *lineEdit, text string) {
	s.query += cleanText(text)
	from := len(s.entries) - 1
	if s.at >= 0 {
		from = s.at
	}
	s.find(from, -1)
}

// view is the prompt, text and cursor the search shows: the entry found,
// with the cursor on the match, or the line as it was before one is found.
func (s *search) view(text string, pos int) (string, string, int) {
	q := strings.NewReplacer("\n", " ", "\t", " ").Replace(s.query)
	prompt := "(reverse-i-search)'" + q + "': "
	if s.failed {
		prompt = "(failed reverse-i-search)'" + q + "': "
	}
	if s.at < 0 {
		return prompt, text, pos
	}
	return prompt, s.entries[s.at], s.off
}

// key handles a key during the search; false when the search is over and
// the key is for the editor.
func (s *search) key(l *lineEdit, msg tea.KeyPressMsg) bool {
	switch msg.String() {
	case "ctrl+r":
		if s.query == "" && s.at < 0 {
			return true
		}
		from := len(s.entries) - 1
		if s.at >= 0 {
			from = s.at - 1
		}
		s.find(from, -1)
	case "ctrl+s":
		if s.at >= 0 {
			s.find(s.at+1, 1)
		}
	case "backspace", "ctrl+h":
		if s.query != "" {
			s.query = s.query[:clusterStart(s.query, len(s.query))]
			s.at = -1
			if s.query != "" {
				s.find(len(s.entries)-1, -1)
			} else {
				s.failed = false
			}
		}
	case "ctrl+g", "ctrl+c":
		l.search = nil
	case "enter":
		s.accept(l)
		return false
	case "esc":
		s.accept(l)
	default:
		if msg.Text != "" && msg.Mod&^(tea.ModShift|tea.ModCapsLock|tea.ModNumLock) == 0 {
			s.add(l, msg.Text)
			return true
		}
		s.accept(l)
		return false
	}
	return true
}

// accept ends the search with the entry found in the line, the cursor on
// the match; with none found, the line stays as it was.
func (s *search) accept(l *lineEdit) {
	l.search = nil
	if s.at < 0 {
		return
	}
	l.e.mu.Lock()
	l.e.hist.leave()
	l.e.mu.Unlock()
	l.buf.set(s.entries[s.at])
	l.buf.pos = snap(l.buf.s, s.off)
}
