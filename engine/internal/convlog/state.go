package convlog

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"cairn/engine/ids"
	"cairn/engine/internal/errs"
)

// State is a session folded from its items journal: the conversation tree,
// the head, and the standing state the record summarises. It is rebuilt
// from the journal on every open; the record is only its summary.
type State struct {
	ID      string
	Path    string
	Created Time
	Updated Time
	Opened  Time
	ForkOf  *ForkRef
	Build   string // the build of the last open or turn
	Branch  string // the branch of the last open or turn

	Title       string
	TitleSource string // prompt | generated | user

	// items are the items made, by id, later those known and not made
	// yet (lazy.go): Item, Has and Len read them.
	items map[string]*Item
	later Later
	Order []string // item ids in journal order
	Head  string
	// RevertFrom is the head before the first of a stack of conversation
	// reverts; "" when there is nothing to unrevert. New work clears it.
	RevertFrom string
	// Draft is the prompt text held for the composer (engine/draft.go), nil when none.
	Draft *Draft

	Turns   int
	Plan    json.RawMessage
	Model   string
	Spend   Spend
	Trust   *Trust
	Allowed []string
	Pinned  bool
	Tier    string
	Meta    map[string]json.RawMessage

	// TurnLog is every numbered turn line, for an open to settle the
	// trail and the usage ledger from (engine/turn_settle.go); Settled is the turn
	// through which both are known durable.
	TurnLog []TurnRec
	Settled int

	Bytes        int64 // payload bytes of all items
	PayloadBytes int64 // the same, as the load measured it

	// NotAfter, while a journal is folded, is the latest time a line may
	// carry and still count as activity (engine/times.go); zero once folded.
	NotAfter time.Time

	// ReadLines and BadLines count the journal's complete lines that were
	// folded and that could not be read (not JSON, or not a version 1 line).
	ReadLines, BadLines int
}

// NewState is the empty state of session id in workspace path.
func NewState(id, path string) *State {
	return &State{ID: id, Path: path, items: map[string]*Item{}, Tier: "full", Meta: map[string]json.RawMessage{}}
}

// Fold folds one journal line into the state. An unknown kind is ignored
// (a newer build may add kinds); a line that breaks the tree is an error.
func (st *State) Fold(l *Line) error {
	at := Time{}
	if l.At != nil {
		at = *l.At
	}
	switch l.Kind {
	case KindSession:
		if l.Session != "" && st.ID == "" {
			st.ID = l.Session
		}
		if l.Path != "" {
			st.Path = l.Path
		}
		st.Created = at
		st.ForkOf = l.ForkOf
		if l.Build != "" {
			st.Build = l.Build
		}
		if l.Branch != "" {
			// The branch it was made on, until an open or turn line says
			// another: a session only hooks open has no open line.
			st.Branch = l.Branch
		}
		st.Touch(at)
	case KindItem:
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
			st.Bytes += l.Payload.Size
		} else {
			st.Bytes += int64(len(it.Text))
		}
		if !st.Has(it.ID) {
			st.Order = append(st.Order, it.ID)
		}
		st.SetItem(it)
		st.Head = it.ID
		if st.Tier == "transcript" {
			st.Tier = "full" // a trimmed session that runs again is full for its new work
		}
		st.RevertFrom = ""
		if it.Type == User {
			st.Draft = nil // sent
		}
		st.Touch(at)
	case KindHead:
		to := ""
		if l.To != nil {
			to = *l.To
		}
		if to != "" && st.Item(to) == nil {
			return fmt.Errorf("head moves to unknown item %q", to)
		}
		switch l.Why {
		case "revert":
			if st.RevertFrom == "" {
				st.RevertFrom = st.Head
			}
		case "unrevert":
			st.RevertFrom = ""
		}
		st.Head = to
		st.Touch(at)
	case KindDraft:
		switch {
		case l.Payload != nil:
			st.Draft = &Draft{Payload: l.Payload, Attachments: l.Attachments}
		case l.Text != nil && (*l.Text != "" || len(l.Attachments) > 0):
			st.Draft = &Draft{Text: *l.Text, Attachments: l.Attachments}
		default:
			st.Draft = nil
		}
		st.Touch(at)
	case KindTitle:
		st.Title, st.TitleSource = l.Title, l.Source
		st.Touch(at)
	case KindTurn:
		if l.Turn != nil {
			t := l.Turn
			st.Turns = max(st.Turns, t.N)
			if t.Plan != nil {
				st.Plan = t.Plan
			}
			if t.Model != "" {
				st.Model = t.Model
			}
			if t.Spend.Check() == nil { // an absurd report counts nothing (fsck names it)
				st.Spend = st.Spend.Add(t.Spend)
			}
			if t.Trust != nil {
				st.Trust = t.Trust
			}
			if t.AllowedCommands != nil {
				st.Allowed = t.AllowedCommands
			}
			if t.Branch != "" {
				st.Branch = t.Branch
			}
			if t.Build != "" {
				st.Build = t.Build
			}
			if t.N > 0 {
				st.TurnLog = append(st.TurnLog, TurnRec{At: at, Items: st.Len(), Turn: t})
			}
		}
		st.Touch(at)
	case KindOpen:
		if at.After(st.Opened.Time) {
			st.Opened = at
		}
		if l.Branch != "" {
			st.Branch = l.Branch
		}
		if l.Build != "" {
			st.Build = l.Build
		}
	case KindMeta:
		var m map[string]json.RawMessage
		if err := json.Unmarshal(l.Meta, &m); err != nil {
			return fmt.Errorf("meta line: %v", err)
		}
		for k, v := range m {
			switch k {
			case "pinned":
				json.Unmarshal(v, &st.Pinned)
			case "tier":
				json.Unmarshal(v, &st.Tier)
			default:
				st.Meta[k] = v
			}
		}
	}
	return nil
}

// Touch moves updated_at forward; a line dated earlier than the last (a
// clock step back) never moves it back, and while a journal is folded a line
// dated in the future does not move it at all.
func (st *State) Touch(at Time) {
	if !st.NotAfter.IsZero() && at.After(st.NotAfter) {
		return // dated in the future: not activity
	}
	if at.After(st.Updated.Time) {
		st.Updated = at
	}
}

// HeadPath walks from the head to the root and returns the active path, oldest first.
func (st *State) HeadPath() []*Item { return st.PathTo(st.Head) }

// PathTo is the path from the root to item id, oldest first.
func (st *State) PathTo(id string) []*Item {
	var rev []*Item
	seen := map[string]bool{}
	for id != "" && !seen[id] {
		seen[id] = true
		it := st.Item(id)
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

// All returns every item in journal order.
func (st *State) All() []*Item {
	out := make([]*Item, 0, len(st.Order))
	for _, id := range st.Order {
		out = append(out, st.Item(id))
	}
	return out
}

// CheckLinks refuses an item whose links say something false: a "call"
// names the tool_call a tool_result answers, so only a tool_result has one,
// and it must name a tool_call on the path the result joins (its parent or
// an ancestor of it). Fork and revert boundaries, compaction and history
// repair read "call"; a wrong one would silently move them. A tool_result
// without a call is still taken from the library (a runtime may record a
// result it cannot tie to a call); the cairn command requires one. The
// outputs an item names must be output ids: a fork copies them by name.
func (st *State) CheckLinks(it *Item) error {
	for _, o := range it.Outputs {
		if !ids.Valid(o) {
			return fmt.Errorf("%w: %q is not an output id", errs.ErrBadInput, o)
		}
	}
	if it.Call == "" {
		return nil
	}
	if it.Type != ToolResult {
		return fmt.Errorf("%w: only a tool_result answers a call (this item is %s)", errs.ErrBadInput, it.Type)
	}
	call := st.Item(it.Call)
	if call == nil {
		return fmt.Errorf("%w: call %q: no such item in session %s", errs.ErrBadInput, it.Call, st.ID)
	}
	if call.Type != ToolCall {
		return fmt.Errorf("%w: call %q is not a tool_call but %s", errs.ErrBadInput, it.Call, call.Type.WithArticle())
	}
	// Walk up from the parent: the call is usually a few items back.
	for id, n := it.Parent, 0; id != "" && n <= st.Len(); n++ {
		if id == it.Call {
			return nil
		}
		p := st.Item(id)
		if p == nil {
			break
		}
		id = p.Parent
	}
	return fmt.Errorf("%w: call %s is not on the path this result joins", errs.ErrBadInput, it.Call)
}

// TurnRec is a numbered turn line as the fold saw it.
type TurnRec struct {
	At    Time
	Items int // items in the session when the turn ended
	Turn  *TurnState
}

// Unreadable reports whether the journal folded into st had complete lines
// and none that could be read.
func (st *State) Unreadable() bool { return st.ReadLines == 0 && st.BadLines > 0 }

// UnavailableNotice tells the user which items of st could not be read
// back, or is "" when every item could.
func (st *State) UnavailableNotice() string {
	const shown = 3
	var ids []string
	n := 0
	for _, id := range st.Order {
		if u := st.Item(id).Unavailable; u != nil {
			if n++; n <= shown {
				ids = append(ids, id+" "+u.String())
			}
		}
	}
	if n == 0 {
		return ""
	}
	if n > shown {
		ids = append(ids, fmt.Sprintf("and %d more", n-shown))
	}
	return fmt.Sprintf("session %s: %d item(s) unavailable, the rest works: %s; "+
		"cairn storage fsck names the journal lines, and putting an object file back restores its item",
		st.ID, n, strings.Join(ids, ", "))
}

// OnHeadPath reports whether item id is the head or one of its ancestors.
func (st *State) OnHeadPath(id string) bool {
	for at, n := st.Head, 0; at != "" && n <= st.Len(); n++ {
		if at == id {
			return true
		}
		it := st.Item(at)
		if it == nil {
			return false
		}
		at = it.Parent
	}
	return false
}

// PathRoot is the first item of the path that ends at id.
func (st *State) PathRoot(id string) string {
	seen := map[string]bool{}
	for id != "" && !seen[id] {
		seen[id] = true
		it := st.Item(id)
		if it == nil {
			return ""
		}
		if it.Parent == "" {
			return id
		}
		id = it.Parent
	}
	return ""
}

// TurnPrompt is the newest user item on the head path: the prompt that
// began the turn ("" when there is none).
func (st *State) TurnPrompt() string {
	seen := map[string]bool{}
	for id := st.Head; id != "" && !seen[id]; {
		seen[id] = true
		it := st.Item(id)
		if it == nil {
			return ""
		}
		if it.Type == User {
			return id
		}
		id = it.Parent
	}
	return ""
}

// Newest is the id of the item written last ("" when none).
func (st *State) Newest() string {
	if n := len(st.Order); n > 0 {
		return st.Order[n-1]
	}
	return ""
}

// InTurn reports, for an item id, whether it lies in the turn of prompt:
// the prompt itself, or an item whose nearest user prompt up its parents
// is it.
func (st *State) InTurn(prompt string) func(string) bool {
	memo := map[string]bool{}
	var in func(id string, depth int) bool
	in = func(id string, depth int) bool {
		if id == prompt {
			return true
		}
		if v, ok := memo[id]; ok {
			return v
		}
		it := st.Item(id)
		r := false
		if it != nil && it.Type != User && depth < len(st.Order) {
			r = in(it.Parent, depth+1)
		}
		memo[id] = r
		return r
	}
	return func(id string) bool { return in(id, 0) }
}
