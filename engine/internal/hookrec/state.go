package hookrec

import (
	"cairn/engine/internal/convlog"
	"cairn/internal/timefmt"
	"cairn/internal/vfs"
	"encoding/json"
	"slices"
	"strings"
	"time"
	"unsafe"
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

// OpenIndex reads the index file index of the items journal journal into
// st, a new state (FromIndex), when it agrees with the journal (Check):
// how it stands to it, and the index, which st reads until
// st.DropLater. Nothing is read into st, and the index is closed, on an
// error, ErrDisagrees included.
func OpenIndex(fsys vfs.FS, index, journal string, st *convlog.State) (*Index, Agreement, error) {
	ix, err := ReadIndex(fsys, index)
	if err != nil {
		return nil, Disagrees, err
	}
	ag, _, err := ix.Check(fsys, journal)
	if err == nil && ag == Disagrees {
		err = ErrDisagrees
	}
	if err == nil {
		err = FromIndex(st, ix)
	}
	if err != nil {
		ix.Close()
		return nil, Disagrees, err
	}
	return ix, ag, nil
}

// FromIndex fills st, a new state, from the index ix: the summary, and
// the items with their links (a user item with its text and time). Every
// line is read and checked now; each item is made when it is first asked
// for (convlog.Later), until st.DropLater closes ix.
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
	// asks for a few of its thousands. The ids the state keeps (its order,
	// the places' keys) are copied out of the index's text, a few at a
	// time into one buffer; an item made is copied whole.
	places := make(map[string]int, ix.n) // an item's place in lines
	lines := make([]int, 0, ix.n)        // where its last line starts in the text
	st.Order = slices.Grow(st.Order, ix.n)
	var ids []byte
	keep := func(id string) string {
		if len(ids)+len(id) > cap(ids) {
			ids = make([]byte, 0, max(len(id), 32<<10))
		}
		ids = append(ids, id...)
		return unsafe.String(&ids[len(ids)-len(id)], len(id))
	}
	var parents []string // parents not read yet when their child was
	err := ix.eachLine(func(at int, line string) error {
		e, err := parseEntry(line)
		if err != nil {
			return err
		}
		if _, err := entryAt(e); err != nil {
			return err
		}
		if p, ok := places[e.ID]; ok {
			ix.stale += int64(len(line) + 1)
			lines[p] = at // no map assignment: it would keep e.ID, a part of the text, as the key
		} else {
			id := keep(e.ID)
			if !st.Has(id) {
				st.Order = append(st.Order, id)
			}
			places[id] = len(lines)
			lines = append(lines, at)
		}
		if _, ok := places[e.Parent]; e.Parent != "" && !ok {
			parents = append(parents, strings.Clone(e.Parent))
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
	st.SetLater(convlog.Later{Places: places, Done: ix.Close, Make: func(place int) *convlog.Item {
		line, _, _ := strings.Cut(ix.text[lines[place]:], "\n")
		e, _ := parseEntry(line) // read and checked above
		at, _ := entryAt(e)
		return &convlog.Item{ID: strings.Clone(e.ID), Type: convlog.TypeNamed(e.Type), Parent: strings.Clone(e.Parent),
			Call: strings.Clone(e.Call), Task: strings.Clone(e.Task), Text: strings.Clone(e.Text), At: at}
	}, Type: func(place int) convlog.ItemType {
		_, rest, _ := strings.Cut(ix.text[lines[place]:], "\t") // "i"
		_, rest, _ = strings.Cut(rest, "\t")                    // the id
		typ, _, _ := strings.Cut(rest, "\t")
		return convlog.TypeNamed(typ)
	}})
	return nil
}

// entryAt checks index entry e's type and reads its time (zero when it
// has none).
func entryAt(e Entry) (timefmt.Time, error) {
	if convlog.TypeNamed(e.Type) == "" {
		return timefmt.Time{}, errIndexItem
	}
	if e.At == "" || e.At == "-" {
		return timefmt.Time{}, nil
	}
	at, err := time.Parse(time.RFC3339Nano, e.At)
	if err != nil {
		return timefmt.Time{}, errIndexItem
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
