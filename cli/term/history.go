package term

// historyWalk is the prompt history and the walk through it with Up and
// Down. It knows nothing of terminals.
//
// Rules (prompt history):
//   - Up walks back from the newest entry and stops at the oldest.
//   - Down walks forward; Down from the newest entry leaves the walk and
//     gives back the draft: the line as it was when Up was first pressed.
//   - Submitting leaves the walk (leave).
//   - An entry added during the walk does not change the entry in view.
//   - Consecutive duplicates collapse into one; empty lines are not kept.
type historyWalk struct {
	entries  []string // oldest first
	browsing bool
	pos      int    // the entry in view, while browsing
	draft    string // the line before the walk began, while browsing
}

func newHistoryWalk(entries []string) *historyWalk {
	h := &historyWalk{}
	for _, s := range entries {
		h.add(s)
	}
	return h
}

// add appends s as the newest entry, unless it is empty or repeats the
// newest entry. Entries are counted from the oldest, so the entry in view
// stays in view.
func (h *historyWalk) add(s string) {
	if s == "" {
		return
	}
	if n := len(h.entries); n > 0 && h.entries[n-1] == s {
		return
	}
	h.entries = append(h.entries, s)
}

// up moves one entry back. current is the line as it stands; it becomes
// the draft when the walk begins. ok is false when nothing changes (no
// history, or already at the oldest entry).
func (h *historyWalk) up(current string) (line string, ok bool) {
	if !h.browsing {
		if len(h.entries) == 0 {
			return "", false
		}
		h.browsing, h.draft, h.pos = true, current, len(h.entries)-1
		return h.entries[h.pos], true
	}
	if h.pos == 0 {
		return "", false
	}
	h.pos--
	return h.entries[h.pos], true
}

// down moves one entry forward, or past the newest entry back to the
// draft, which ends the walk. ok is false when not browsing.
func (h *historyWalk) down() (line string, ok bool) {
	if !h.browsing {
		return "", false
	}
	if h.pos+1 < len(h.entries) {
		h.pos++
		return h.entries[h.pos], true
	}
	line = h.draft
	h.leave()
	return line, true
}

// leave ends the walk (a line was submitted or discarded).
func (h *historyWalk) leave() {
	h.browsing, h.pos, h.draft = false, 0, ""
}

// list returns a copy of the entries, oldest first.
func (h *historyWalk) list() []string {
	return append([]string(nil), h.entries...)
}
