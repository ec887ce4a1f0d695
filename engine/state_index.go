package engine

import (
	"encoding/json"
	"errors"
	"time"

	"cairn/engine/internal/hookrec"
	"cairn/internal/timefmt"
)

// stateSummary is what the hooks' index keeps of a state beside its items
// (hook_prompt.go): every field of the fold but the items, the turn log
// the settled turn (an open reads that from the record), and the counts of
// lines read, which only a whole open's checks use.
type stateSummary struct {
	Path        string                     `json:"path"`
	Created     Time                       `json:"created"`
	Updated     Time                       `json:"updated"`
	Opened      Time                       `json:"opened"`
	ForkOf      *ForkRef                   `json:"fork_of,omitempty"`
	Build       string                     `json:"build,omitempty"`
	Branch      string                     `json:"branch,omitempty"`
	Title       string                     `json:"title,omitempty"`
	TitleSource string                     `json:"title_source,omitempty"`
	Head        string                     `json:"head,omitempty"`
	RevertFrom  string                     `json:"revert_from,omitempty"`
	Draft       *Draft                     `json:"draft,omitempty"`
	Turns       int                        `json:"turns,omitempty"`
	Plan        json.RawMessage            `json:"plan,omitempty"`
	Model       string                     `json:"model,omitempty"`
	Spend       Spend                      `json:"spend"`
	Trust       *Trust                     `json:"trust,omitempty"`
	Allowed     []string                   `json:"allowed,omitempty"`
	Pinned      bool                       `json:"pinned,omitempty"`
	Tier        string                     `json:"tier"`
	Meta        map[string]json.RawMessage `json:"meta,omitempty"`
	Bytes       int64                      `json:"bytes"`
}

func (st *state) summary() stateSummary {
	return stateSummary{Path: st.path, Created: st.created, Updated: st.updated, Opened: st.opened, ForkOf: st.forkOf,
		Build: st.build, Branch: st.branch, Title: st.title, TitleSource: st.titleSource, Head: st.head, RevertFrom: st.revertFrom,
		Draft: st.draft, Turns: st.turns, Plan: st.plan, Model: st.model, Spend: st.spend, Trust: st.trust, Allowed: st.allowed,
		Pinned: st.pinned, Tier: st.tier, Meta: st.meta, Bytes: st.bytes}
}

// errIndexItem: an index names an item whose parent or call it lacks.
var errIndexItem = errors.New("engine: the index's items do not hang together")

// fromIndex fills st, a new state, from the index ix: the summary, and
// the items with their links (a user item with its text and time).
func (st *state) fromIndex(ix *hookrec.Index) error {
	var m stateSummary
	if err := json.Unmarshal(ix.State, &m); err != nil {
		return err
	}
	st.path, st.created, st.updated, st.opened, st.forkOf = m.Path, m.Created, m.Updated, m.Opened, m.ForkOf
	st.build, st.branch, st.title, st.titleSource, st.head, st.revertFrom = m.Build, m.Branch, m.Title, m.TitleSource, m.Head, m.RevertFrom
	st.draft, st.turns, st.plan, st.model, st.spend, st.trust, st.allowed = m.Draft, m.Turns, m.Plan, m.Model, m.Spend, m.Trust, m.Allowed
	st.pinned, st.tier, st.bytes = m.Pinned, m.Tier, m.Bytes
	if m.Meta != nil {
		st.meta = m.Meta
	}
	for _, e := range ix.Items {
		it := &Item{ID: e.ID, Type: ItemType(e.Type), Parent: e.Parent, Call: e.Call, Task: e.Task, Text: e.Text}
		if !it.Type.valid() {
			return errIndexItem
		}
		if e.At != "" && e.At != "-" {
			at, err := time.Parse(time.RFC3339Nano, e.At)
			if err != nil {
				return err
			}
			it.At = mkTime(at)
		}
		if st.items[it.ID] == nil {
			st.order = append(st.order, it.ID)
		}
		st.items[it.ID] = it
	}
	for _, it := range st.items {
		if it.Parent != "" && st.items[it.Parent] == nil {
			return errIndexItem
		}
	}
	if st.head != "" && st.items[st.head] == nil {
		return errIndexItem
	}
	return nil
}

// entries is the index's entries of the items ids, each once.
func (st *state) entries(ids []string) []hookrec.Entry {
	out := make([]hookrec.Entry, 0, len(ids))
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		it := st.items[id]
		if it == nil || seen[id] {
			continue
		}
		seen[id] = true
		e := hookrec.Entry{ID: it.ID, Type: string(it.Type), Parent: it.Parent, Call: it.Call, Task: it.Task}
		if it.Type == User {
			e.At, e.Text = "-", it.Text
			if !it.At.IsZero() {
				e.At = timefmt.Format(it.At.Time)
			}
		}
		out = append(out, e)
	}
	return out
}
