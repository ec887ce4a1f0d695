package hookrec

import (
	"cairn/engine/internal/convlog"
	"cairn/internal/timefmt"
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// StateSummary is what the hooks' index keeps of a state beside its items
// (engine/hook_prompt.go): every field of the fold but the items, the turn log
// the settled turn (an open reads that from the record), and the counts of
// lines read, which only a whole open's checks use.
type StateSummary struct {
	Path        string                     `json:"path"`
	Created     timefmt.Time               `json:"created"`
	Updated     timefmt.Time               `json:"updated"`
	Opened      timefmt.Time               `json:"opened"`
	ForkOf      *convlog.ForkRef           `json:"fork_of,omitempty"`
	Build       string                     `json:"build,omitempty"`
	Branch      string                     `json:"branch,omitempty"`
	Title       string                     `json:"title,omitempty"`
	TitleSource string                     `json:"title_source,omitempty"`
	Head        string                     `json:"head,omitempty"`
	RevertFrom  string                     `json:"revert_from,omitempty"`
	Draft       *convlog.Draft             `json:"draft,omitempty"`
	Turns       int                        `json:"turns,omitempty"`
	Plan        json.RawMessage            `json:"plan,omitempty"`
	Model       string                     `json:"model,omitempty"`
	Spend       convlog.Spend              `json:"spend"`
	Trust       *convlog.Trust             `json:"trust,omitempty"`
	Allowed     []string                   `json:"allowed,omitempty"`
	Pinned      bool                       `json:"pinned,omitempty"`
	Tier        string                     `json:"tier"`
	Meta        map[string]json.RawMessage `json:"meta,omitempty"`
	Bytes       int64                      `json:"bytes"`
}

// SummaryOf is what the index keeps of st beside its items.
func SummaryOf(st *convlog.State) StateSummary {
	return StateSummary{Path: st.Path, Created: st.Created, Updated: st.Updated, Opened: st.Opened, ForkOf: st.ForkOf,
		Build: st.Build, Branch: st.Branch, Title: st.Title, TitleSource: st.TitleSource, Head: st.Head, RevertFrom: st.RevertFrom,
		Draft: st.Draft, Turns: st.Turns, Plan: st.Plan, Model: st.Model, Spend: st.Spend, Trust: st.Trust, Allowed: st.Allowed,
		Pinned: st.Pinned, Tier: st.Tier, Meta: st.Meta, Bytes: st.Bytes}
}

// FromIndex fills st, a new state, from the index ix: the summary, and
// the items with their links (a user item with its text and time). Every
// line is read and checked now; each item is made when it is first asked
// for (convlog.Later).
func FromIndex(st *convlog.State, ix *Index) error {
	var m StateSummary
	if err := json.Unmarshal(ix.State, &m); err != nil {
		return err
	}
	st.Path, st.Created, st.Updated, st.Opened, st.ForkOf = m.Path, m.Created, m.Updated, m.Opened, m.ForkOf
	st.Build, st.Branch, st.Title, st.TitleSource, st.Head, st.RevertFrom = m.Build, m.Branch, m.Title, m.TitleSource, m.Head, m.RevertFrom
	st.Draft, st.Turns, st.Plan, st.Model, st.Spend, st.Trust, st.Allowed = m.Draft, m.Turns, m.Plan, m.Model, m.Spend, m.Trust, m.Allowed
	st.Pinned, st.Tier, st.Bytes = m.Pinned, m.Tier, m.Bytes
	if m.Meta != nil {
		st.Meta = m.Meta
	}
	// Each line is read and checked here; its item is made when it is
	// first asked for (convlog.Later): a prompt hook in a long session
	// asks for a few of its thousands.
	places := make(map[string]int, ix.n)
	st.Order = slices.Grow(st.Order, ix.n)
	var parents []string // parents not read yet when their child was
	err := ix.eachLine(func(at int, line string) error {
		e, err := parseEntry(line)
		if err != nil {
			return err
		}
		if _, err := entryAt(e); err != nil {
			return err
		}
		if _, ok := places[e.ID]; ok {
			ix.stale += int64(len(line) + 1)
		} else if !st.Has(e.ID) {
			st.Order = append(st.Order, e.ID)
		}
		places[e.ID] = at
		if _, ok := places[e.Parent]; e.Parent != "" && !ok {
			parents = append(parents, e.Parent)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, p := range parents {
		if _, ok := places[p]; !ok {
			return errIndexItem
		}
	}
	if _, ok := places[st.Head]; st.Head != "" && !ok {
		return errIndexItem
	}
	text := ix.text
	st.SetLater(convlog.Later{Places: places, Make: func(place int) *convlog.Item {
		line, _, _ := strings.Cut(text[place:], "\n")
		e, _ := parseEntry(line) // read and checked above
		at, _ := entryAt(e)
		return &convlog.Item{ID: e.ID, Type: convlog.ItemType(e.Type), Parent: e.Parent, Call: e.Call, Task: e.Task, Text: e.Text, At: at}
	}, Type: func(place int) convlog.ItemType {
		_, rest, _ := strings.Cut(text[place:], "\t") // "i"
		_, rest, _ = strings.Cut(rest, "\t")          // the id
		typ, _, _ := strings.Cut(rest, "\t")
		return convlog.ItemType(typ)
	}})
	return nil
}

// entryAt checks index entry e's type and reads its time (zero when it
// has none).
func entryAt(e Entry) (timefmt.Time, error) {
	if !convlog.ItemType(e.Type).Valid() {
		return timefmt.Time{}, errIndexItem
	}
	if e.At == "" || e.At == "-" {
		return timefmt.Time{}, nil
	}
	at, err := time.Parse(time.RFC3339Nano, e.At)
	if err != nil {
		return timefmt.Time{}, err
	}
	return timefmt.Mk(at), nil
}

// Entries is the index's entries of the items ids, each once.
func Entries(st *convlog.State, ids []string) []Entry {
	out := make([]Entry, 0, len(ids))
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		it := st.Item(id)
		if it == nil || seen[id] {
			continue
		}
		seen[id] = true
		e := Entry{ID: it.ID, Type: string(it.Type), Parent: it.Parent, Call: it.Call, Task: it.Task}
		if it.Type == convlog.User {
			e.At, e.Text = "-", it.Text
			if !it.At.IsZero() {
				e.At = timefmt.Format(it.At.Time)
			}
		}
		out = append(out, e)
	}
	return out
}
