package bgwork

import (
	"encoding/json"
	"time"

	"cairn/engine/ids"
	"cairn/journal"
)

// Work is one piece of background work as the journal says it stands.
type Work struct {
	ID    string `json:"id"`
	Type  string `json:"type"`
	Owner string `json:"owner,omitempty"` // "" = the session
	Label string `json:"label,omitempty"`
	// Calls are the tool_call items that admitted and continued it.
	Calls []string `json:"calls"`
	Held  bool     `json:"held,omitempty"`
	// Background: its current (or last) run answers with a receipt.
	Background bool   `json:"background"`
	State      string `json:"state"`             // StateRunning, StateCancelling, StatePaused or StateSettled
	Outcome    string `json:"outcome,omitempty"` // when settled
	Text       string `json:"text,omitempty"`
	Output     string `json:"output,omitempty"`
	// Blocked: it made a blocked report; it settles blocked.
	Blocked bool `json:"blocked,omitempty"`
	Reports int  `json:"reports"`
	// Archived: settled and every delivery of it made.
	Archived   bool       `json:"archived"`
	AdmittedAt time.Time  `json:"admitted_at"`
	SettledAt  *time.Time `json:"settled_at,omitempty"`
	// Order is its place in admission order, from 1: what List pages by.
	Order int `json:"-"`
	// Turn is the session's turn count when it was admitted (reminders
	// count from it).
	Turn int `json:"-"`

	owed int // deliveries of it not made yet
}

// Live reports whether w is running or cancelling.
func (w *Work) Live() bool { return w.State == StateRunning || w.State == StateCancelling }

// Delivery is a result or report owed to (or made to) an owner.
type Delivery struct {
	Item  string `json:"item"` // the item id reserved for it
	Kind  string `json:"kind"` // DeliverResult or DeliverReport
	Work  string `json:"work"`
	Owner string `json:"owner,omitempty"` // who gets it: "" = the session
	// Call is the tool_call a result answers: the call of the run that
	// settled.
	Call    string `json:"call,omitempty"`
	Outcome string `json:"outcome,omitempty"`
	Text    string `json:"text,omitempty"`
	Output  string `json:"output,omitempty"`
	Title   string `json:"title,omitempty"`
	Message string `json:"message,omitempty"`
	Blocked bool   `json:"blocked,omitempty"`
	// Wake: it is new work for its owner; false when it was recorded
	// while automatic continuation was stopped (kept, not woken for).
	Wake      bool      `json:"wake"`
	At        time.Time `json:"at"`
	Delivered bool      `json:"delivered"`
}

// State is the fold of a journal: the work in admission order, the
// deliveries in the order they were recorded, and whether continuation is
// stopped.
type State struct {
	works      []*Work
	by         map[string]*Work
	deliveries []*Delivery
	items      map[string]*Delivery
	owed       int // deliveries not made yet
	stopped    bool
	// reminded is the turn of the latest reminder, 0 before the first.
	reminded int
	// Skipped counts lines that made no sense where they stood.
	Skipped int
}

func newState() *State {
	return &State{by: map[string]*Work{}, items: map[string]*Delivery{}}
}

// Stopped reports whether automatic continuation is stopped (a stop not
// yet followed by a user turn).
func (s *State) Stopped() bool { return s.stopped }

// Work returns the work of id, a copy, and whether there is one.
func (s *State) Work(id string) (Work, bool) {
	w := s.by[id]
	if w == nil {
		return Work{}, false
	}
	return w.copy(), true
}

// Works is every piece of work in admission order, copied.
func (s *State) Works() []Work {
	out := make([]Work, len(s.works))
	for i, w := range s.works {
		out[i] = w.copy()
	}
	return out
}

// Live counts running and cancelling work.
func (s *State) Live() int {
	n := 0
	for _, w := range s.works {
		if w.Live() {
			n++
		}
	}
	return n
}

// Owed is the deliveries to owner not made yet, in order, copied.
func (s *State) Owed(owner string) []Delivery {
	var out []Delivery
	if s.owed == 0 {
		return nil
	}
	for _, d := range s.deliveries {
		if !d.Delivered && d.Owner == owner {
			out = append(out, *d)
		}
	}
	return out
}

// Owners is the owners with deliveries owed, in the order of their first.
func (s *State) Owners() []string {
	var out []string
	seen := map[string]bool{}
	for _, d := range s.deliveries {
		if !d.Delivered && !seen[d.Owner] {
			seen[d.Owner] = true
			out = append(out, d.Owner)
		}
	}
	return out
}

// Deliveries is every delivery of work id, made or owed, in order.
func (s *State) Deliveries(id string) []Delivery {
	var out []Delivery
	for _, d := range s.deliveries {
		if d.Work == id {
			out = append(out, *d)
		}
	}
	return out
}

func (w *Work) copy() Work {
	c := *w
	c.Calls = append([]string(nil), w.Calls...)
	if w.SettledAt != nil {
		t := *w.SettledAt
		c.SettledAt = &t
	}
	return c
}

// apply folds one line into s; it reports whether the line made sense
// (a line that does not is skipped and counted).
func (s *State) apply(l *line) bool {
	at := l.At.Time
	switch l.Kind {
	case KindStop:
		s.stopped = true
		return true
	case KindResume:
		s.stopped = false
		return true
	case KindDelivered:
		d := s.items[l.Item]
		if d == nil || d.Delivered {
			return false
		}
		d.Delivered = true
		s.owed--
		if w := s.by[d.Work]; w != nil { // a reminder belongs to no work
			w.owed--
			w.Archived = w.State == StateSettled && w.owed == 0
		}
		return true
	case KindRemind:
		if l.Item == "" || s.items[l.Item] != nil || l.Turn < 0 {
			return false
		}
		s.owe(nil, &Delivery{Item: l.Item, Kind: DeliverReminder, Text: l.Text, At: at})
		s.reminded = max(s.reminded, l.Turn)
		return true
	}
	if !ids.Valid(l.Work) {
		return false
	}
	w := s.by[l.Work]
	if l.Kind == KindAdmit {
		if w != nil || !validType(l.Type) || l.Owner != "" && !ids.Valid(l.Owner) {
			return false
		}
		w = &Work{ID: l.Work, Type: l.Type, Owner: l.Owner, Label: l.Label, Calls: []string{l.Call}, Held: l.Held,
			Background: l.Receipt, State: StateRunning, AdmittedAt: at, Order: len(s.works) + 1, Turn: max(l.Turn, 0)}
		s.works = append(s.works, w)
		s.by[w.ID] = w
		return true
	}
	if w == nil {
		return false
	}
	switch l.Kind {
	case KindContinue:
		if !(w.State == StateSettled && w.Type == TypeTask && w.Outcome != Interrupted || w.State == StatePaused) {
			return false
		}
		w.Calls = append(w.Calls, l.Call)
		w.State, w.Outcome, w.Text, w.Output, w.Blocked = StateRunning, "", "", "", false
		w.Background, w.SettledAt, w.Archived = l.Receipt, nil, false
	case KindPromote:
		if w.State != StateRunning || w.Type != TypeTask || w.Background {
			return false
		}
		w.Background = true
	case KindPause:
		if w.State != StateRunning || w.Type != TypeWorkflow {
			return false
		}
		w.State = StatePaused
	case KindCancel:
		if w.State != StateRunning {
			return false
		}
		w.State = StateCancelling
	case KindReport:
		if !w.Live() || w.Type == TypeShell || l.Item == "" || s.items[l.Item] != nil {
			return false
		}
		w.Reports++
		w.Blocked = w.Blocked || l.Blocked
		s.owe(w, &Delivery{Item: l.Item, Kind: DeliverReport, Work: w.ID, Owner: w.Owner, Title: l.Title, Message: l.Message,
			Blocked: l.Blocked, Wake: !s.stopped, At: at})
	case KindSettle:
		if w.State == StateSettled || !validOutcome(l.Outcome) || l.Item != "" && s.items[l.Item] != nil {
			return false
		}
		w.State, w.Outcome, w.Text, w.Output = StateSettled, l.Outcome, l.Text, l.Output
		w.SettledAt = &at
		if l.Item != "" {
			s.owe(w, &Delivery{Item: l.Item, Kind: DeliverResult, Work: w.ID, Owner: w.Owner, Call: w.Calls[len(w.Calls)-1],
				Outcome: l.Outcome, Text: l.Text, Output: l.Output, Wake: !s.stopped, At: at})
		}
		w.Archived = w.owed == 0
	default:
		return false
	}
	return true
}

// owe records delivery d of w (nil for a reminder) as owed.
func (s *State) owe(w *Work, d *Delivery) {
	s.deliveries = append(s.deliveries, d)
	s.items[d.Item] = d
	s.owed++
	if w != nil {
		w.owed++
		w.Archived = false
	}
}

// decode reads one journal line into l; false for a line that is not one
// of ours (another version, a repair line).
func decode(b []byte, l *line) bool {
	*l = line{}
	if json.Unmarshal(b, l) != nil || l.V != 1 || l.Kind == journal.KindRepair {
		return false
	}
	return true
}

// OwnerGone shows s as the next owner will find it, for a reader that
// knows no process owns the session: its live work that is not held reads
// settled interrupted (nothing is written; the next Open writes it).
func (s *State) OwnerGone() {
	for _, w := range s.works {
		if w.Live() && !w.Held {
			w.State, w.Outcome = StateSettled, Interrupted
			w.Text = "interrupted: the process running it ended; its outcome is unknown and it is not run again"
		}
	}
}

// clone is a deep copy of s, for a caller outside the lock.
func (s *State) clone() *State {
	c := &State{by: make(map[string]*Work, len(s.works)), items: make(map[string]*Delivery, len(s.deliveries)),
		owed: s.owed, stopped: s.stopped, reminded: s.reminded, Skipped: s.Skipped}
	for _, w := range s.works {
		cw := w.copy()
		c.works = append(c.works, &cw)
		c.by[cw.ID] = &cw
	}
	for _, d := range s.deliveries {
		cd := *d
		c.deliveries = append(c.deliveries, &cd)
		c.items[cd.Item] = &cd
	}
	return c
}
