package bgwork

import (
	"fmt"
	"strings"
)

// Reminders. The session (its main agent) gets a bounded reminder of the
// background work still running after a compaction, which drops the turns
// that started it from the request view, and, when the runtime asks for
// it (config.json's agent.background_reminder_turns, 0 by default), every
// N turns while work runs. A reminder is a delivery like a result: an
// item reserved by a remind line, put once, in order. It never wakes its
// owner (Wake is false): it starts no turn of its own. The changes of
// state themselves (a result, a report) reach the owner as their own
// deliveries.

// MaxReminded is how many pieces of work a reminder names; the rest are
// counted.
const MaxReminded = 10

// Reminder says why a reminder is asked for at the end of turn Turn (the
// session's turns ended so far).
type Reminder struct {
	Turn int
	// Every is agent.background_reminder_turns: a periodic reminder is due
	// once Every turns have ended since the running work began, or since
	// the last reminder; 0 asks for none.
	Every int
	// Compacted: the conversation was just compacted; a reminder is due
	// whenever work runs.
	Compacted bool
}

// Due reports whether q asks for a reminder of s's work: work of the
// session's own runs, and q is a compaction or Every turns have passed.
func (s *State) Due(q Reminder) bool {
	since, running := -1, false
	for _, w := range s.works {
		if w.Live() && w.Owner == "" {
			if !running || w.Turn < since {
				since = w.Turn
			}
			running = true
		}
	}
	switch {
	case !running:
		return false
	case q.Compacted:
		return true
	case q.Every <= 0:
		return false
	}
	return q.Turn-max(since, s.reminded) >= q.Every
}

// ReminderText is what a reminder at the end of turn says: the session's
// running work, at most MaxReminded of it named, oldest first.
func (s *State) ReminderText(turn int) string {
	var live []*Work
	for _, w := range s.works {
		if w.Live() && w.Owner == "" {
			live = append(live, w)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Background work still running (%s); each result comes as its own item, with no need to poll:",
		countWord(len(live), "piece", "pieces"))
	for i, w := range live {
		if i == MaxReminded {
			fmt.Fprintf(&b, "\n- and %d more (task_control list)", len(live)-i)
			break
		}
		state := ""
		if w.State == StateCancelling {
			state = ", cancelling"
		}
		fmt.Fprintf(&b, "\n- %s (%s%s, %s): %s", w.ID, typeWord(w.Type), state,
			countWord(max(turn-w.Turn, 0), "turn", "turns"), oneLine(w.Label, 80))
	}
	return b.String()
}

func countWord(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Remind records a reminder for the session when q asks for one (Due),
// and returns its delivery; nil when none is due.
func (l *Ledger) Remind(q Reminder) (*Delivery, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if q.Turn < 0 || !l.st.Due(q) {
		return nil, nil
	}
	ln := &line{Kind: KindRemind, Item: l.newItem(), Text: l.st.ReminderText(q.Turn), Turn: q.Turn}
	if err := l.write(ln); err != nil {
		return nil, err
	}
	d := *l.st.items[ln.Item]
	return &d, nil
}

// Waking reports whether the session's agent is to be woken by its
// background work: automatic continuation is not stopped, and work of the
// session's own runs in the background, or a delivery to it that wakes is
// owed. It is what a runtime's waiting label shows; it does not mean a
// model request runs.
func (s *State) Waking() bool {
	if s.stopped {
		return false
	}
	for _, w := range s.works {
		if w.Live() && w.Owner == "" && w.Background {
			return true
		}
	}
	if s.owed == 0 {
		return false
	}
	for _, d := range s.deliveries {
		if !d.Delivered && d.Owner == "" && d.Wake {
			return true
		}
	}
	return false
}

// Waking is State().Waking without the copy: for a label redrawn often.
func (l *Ledger) Waking() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.st.Waking()
}
