package engine

import (
	"encoding/json"
	"fmt"
	"time"
)

// state is a session folded from its items journal: the conversation tree,
// the head, and the standing state the record summarises. It is rebuilt
// from the journal on every open; the record is only its summary.
type state struct {
	id      string
	path    string
	created Time
	updated Time
	opened  Time
	forkOf  *ForkRef
	build   string // the build of the last open or turn
	branch  string // the branch of the last open or turn

	title       string
	titleSource string // prompt | generated | user

	items map[string]*Item
	order []string // item ids in journal order
	head  string
	// revertFrom is the head before the first of a stack of conversation
	// reverts; "" when there is nothing to unrevert. New work clears it.
	revertFrom string
	// draft is the prompt text held for the composer (draft.go), nil when none.
	draft *Draft

	turns   int
	plan    json.RawMessage
	model   string
	spend   Spend
	trust   *Trust
	allowed []string
	pinned  bool
	tier    string
	meta    map[string]json.RawMessage

	// turnLog is every numbered turn line, for an open to settle the
	// trail and the usage ledger from (turn_settle.go); settled is the turn
	// through which both are known durable.
	turnLog []turnRec
	settled int

	bytes        int64 // payload bytes of all items
	payloadBytes int64 // the same, as the load measured it

	// notAfter, while a journal is folded, is the latest time a line may
	// carry and still count as activity (times.go); zero once folded.
	notAfter time.Time

	// readLines and badLines count the journal's complete lines that were
	// folded and that could not be read (not JSON, or not a version 1 line).
	readLines, badLines int
}

func newState(id, path string) *state {
	return &state{id: id, path: path, items: map[string]*Item{}, tier: "full", meta: map[string]json.RawMessage{}}
}

// apply folds one journal line into the state. An unknown kind is ignored
// (a newer build may add kinds); a line that breaks the tree is an error.
func (st *state) apply(l *itemLine) error {
	at := Time{}
	if l.At != nil {
		at = *l.At
	}
	switch l.Kind {
	case kindSession:
		if l.Session != "" && st.id == "" {
			st.id = l.Session
		}
		if l.Path != "" {
			st.path = l.Path
		}
		st.created = at
		st.forkOf = l.ForkOf
		if l.Build != "" {
			st.build = l.Build
		}
		if l.Branch != "" {
			// The branch it was made on, until an open or turn line says
			// another: a session only hooks open has no open line.
			st.branch = l.Branch
		}
		st.touch(at)
	case kindItem:
		if l.ID == "" || !l.Type.Valid() {
			return fmt.Errorf("item line without id or with type %q", l.Type)
		}
		it := &Item{ID: l.ID, Type: l.Type, At: at, Tool: l.Tool, Call: l.Call, Status: l.Status,
			Quarantined: l.Quarantined, Slot: l.Slot, Replaces: l.Replaces, Outputs: l.Outputs, Unavailable: l.Unavailable,
			Attachments: l.Attachments, Task: l.Task, Title: l.Title, Blocked: l.Blocked, From: l.From}
		if l.Parent != nil {
			it.Parent = *l.Parent
		}
		// A payload's size counts once, whether or not the load read its
		// text back into the line.
		if l.Text != nil {
			it.Text = *l.Text
		}
		if l.Payload != nil {
			st.bytes += l.Payload.Size
		} else {
			st.bytes += int64(len(it.Text))
		}
		if _, dup := st.items[it.ID]; !dup {
			st.order = append(st.order, it.ID)
		}
		st.items[it.ID] = it
		st.head = it.ID
		if st.tier == "transcript" {
			st.tier = "full" // a trimmed session that runs again is full for its new work
		}
		st.revertFrom = ""
		if it.Type == User {
			st.draft = nil // sent
		}
		st.touch(at)
	case kindHead:
		to := ""
		if l.To != nil {
			to = *l.To
		}
		if to != "" && st.items[to] == nil {
			return fmt.Errorf("head moves to unknown item %q", to)
		}
		switch l.Why {
		case "revert":
			if st.revertFrom == "" {
				st.revertFrom = st.head
			}
		case "unrevert":
			st.revertFrom = ""
		}
		st.head = to
		st.touch(at)
	case kindDraft:
		switch {
		case l.Payload != nil:
			st.draft = &Draft{Payload: l.Payload, Attachments: l.Attachments}
		case l.Text != nil && (*l.Text != "" || len(l.Attachments) > 0):
			st.draft = &Draft{Text: *l.Text, Attachments: l.Attachments}
		default:
			st.draft = nil
		}
		st.touch(at)
	case kindTitle:
		st.title, st.titleSource = l.Title, l.Source
		st.touch(at)
	case kindTurn:
		if l.Turn != nil {
			t := l.Turn
			st.turns = max(st.turns, t.N)
			if t.Plan != nil {
				st.plan = t.Plan
			}
			if t.Model != "" {
				st.model = t.Model
			}
			if t.Spend.Check() == nil { // an absurd report counts nothing (fsck names it)
				st.spend = st.spend.Add(t.Spend)
			}
			if t.Trust != nil {
				st.trust = t.Trust
			}
			if t.AllowedCommands != nil {
				st.allowed = t.AllowedCommands
			}
			if t.Branch != "" {
				st.branch = t.Branch
			}
			if t.Build != "" {
				st.build = t.Build
			}
			if t.N > 0 {
				st.turnLog = append(st.turnLog, turnRec{at: at, items: len(st.items), turn: t})
			}
		}
		st.touch(at)
	case kindOpen:
		if at.After(st.opened.Time) {
			st.opened = at
		}
		if l.Branch != "" {
			st.branch = l.Branch
		}
		if l.Build != "" {
			st.build = l.Build
		}
	case kindMeta:
		var m map[string]json.RawMessage
		if err := json.Unmarshal(l.Meta, &m); err != nil {
			return fmt.Errorf("meta line: %v", err)
		}
		for k, v := range m {
			switch k {
			case "pinned":
				json.Unmarshal(v, &st.pinned)
			case "tier":
				json.Unmarshal(v, &st.tier)
			default:
				st.meta[k] = v
			}
		}
	}
	return nil
}

// touch moves updated_at forward; a line dated earlier than the last (a
// clock step back) never moves it back, and while a journal is folded a line
// dated in the future does not move it at all.
func (st *state) touch(at Time) {
	if !st.notAfter.IsZero() && at.After(st.notAfter) {
		return // dated in the future: not activity
	}
	if at.After(st.updated.Time) {
		st.updated = at
	}
}

// path walks from the head to the root and returns the active path, oldest first.
func (st *state) headPath() []*Item { return st.pathTo(st.head) }

func (st *state) pathTo(id string) []*Item {
	var rev []*Item
	seen := map[string]bool{}
	for id != "" && !seen[id] {
		seen[id] = true
		it := st.items[id]
		if it == nil {
			break
		}
		rev = append(rev, it)
		id = it.Parent
	}
	out := make([]*Item, len(rev))
	for i, it := range rev {
		out[len(rev)-1-i] = it
	}
	return out
}

// all returns every item in journal order.
func (st *state) all() []*Item {
	out := make([]*Item, 0, len(st.order))
	for _, id := range st.order {
		out = append(out, st.items[id])
	}
	return out
}
