package convlog

import (
	"fmt"
	"strings"

	"cairn/engine/internal/errs"
	"cairn/engine/internal/titles"
)

// Compaction replaces an older stretch of the conversation by a summary in
// the request view only: a compaction item, appended at the head, names the
// first and last item of the stretch it replaces, as the request view stood
// when it was made. The transcript and the record keep every item, so the
// replaced stretch stays readable (Archive). The cut never lands between a
// tool call and its results.
//
// Compaction repeats: a stretch always starts at the start of the request
// view, so a later compaction covers the earlier one's summary and what came
// after it. Its archive holds that summary, whose own archive holds the
// stretch before it, and so on back to the first prompt.

// CompactStretch is the stretch a compaction through upTo replaces in the
// request view of path (the head path): from the view's start through
// upTo, or, with upTo "", through the item before the newest user prompt.
// The cut moves past every result that answers a call in the stretch, and
// a call of the newest turn still waiting for its result refuses it.
func CompactStretch(path []*Item, upTo string) ([]*Item, error) {
	view := RequestView(path)
	end := -1
	if upTo == "" {
		for i := len(view) - 1; i >= 0; i-- {
			if view[i].Type == User {
				end = i - 1
				break
			}
		}
	} else {
		for i, it := range view {
			if it.ID == upTo {
				end = i
			}
		}
		if end < 0 {
			return nil, fmt.Errorf("%w: item %q is not in the request view (not on the head path, or already compacted)", errs.ErrBadInput, upTo)
		}
	}
	// Never separate a call from its results: the cut moves past every
	// result that answers a call in the stretch (parallel calls included),
	// and a call of the newest turn still waiting for its result is not cut.
	resultAt := map[string]int{}
	newest := -1
	for i, it := range view {
		switch it.Type {
		case ToolResult:
			resultAt[it.Call] = i
		case User:
			newest = i
		}
	}
	for i := 0; i <= end; i++ {
		if view[i].Type != ToolCall {
			continue
		}
		r, answered := resultAt[view[i].ID]
		if answered && r > end {
			end = r
		}
		if !answered && i > newest {
			return nil, errs.Refusedf("tool call %s has no result yet: compact up to an item before it, or once its result is in", view[i].ID)
		}
	}
	stretch := view[:end+1]
	if len(stretch) == 0 || len(stretch) == 1 && stretch[0].Type == Compaction {
		return nil, errs.Refusedf("nothing to compact: nothing new before the newest prompt since the last compaction")
	}
	return stretch, nil
}

// PlainSummary lists the prompts of a stretch when no model summarised it;
// an earlier plain summary in the stretch passes its listing on.
func PlainSummary(items []*Item) string {
	var b strings.Builder
	n := 0
	var lines []string
	for _, it := range items {
		switch it.Type {
		case User:
			n++
			lines = append(lines, "- asked: "+titles.FromPrompt(it.Text))
		case Compaction:
			head, rest, _ := strings.Cut(it.Text, "\n")
			var earlier int
			// "Compacted 1 item." or "Compacted N items.": the scan
			// stops after "item".
			if _, err := fmt.Sscanf(head, "Compacted %d item", &earlier); err == nil {
				n += earlier
			} else {
				lines = append(lines, "- earlier summary: "+titles.FromPrompt(head))
			}
			for l := range strings.SplitSeq(rest, "\n") {
				if strings.HasPrefix(l, "- ") {
					lines = append(lines, l)
				}
			}
		default:
			n++
		}
	}
	if n == 1 {
		b.WriteString("Compacted 1 item.")
	} else {
		fmt.Fprintf(&b, "Compacted %d items.", n)
	}
	for _, l := range lines {
		b.WriteString("\n" + l)
	}
	return b.String()
}

// RequestView walks path and replaces, at each compaction item, the stretch
// it names in the view built so far (which may start with an earlier
// compaction item) by the compaction item itself. A compaction whose
// stretch is not in the view (a hand-made line) stays as an item.
func RequestView(path []*Item) []*Item {
	out := make([]*Item, 0, len(path))
	for _, it := range path {
		if it.Type == Compaction && len(it.Replaces) == 2 {
			if first, last := stretchIn(out, it.Replaces); first >= 0 {
				rest := append([]*Item{it}, out[last+1:]...)
				out = append(out[:first], rest...)
				continue
			}
		}
		out = append(out, it)
	}
	return out
}

// Archive is the stretch compaction item c replaced, from st, which keeps
// it: the request view as it stood before c, from the first through the
// last item c names; nil when that view no longer holds it.
func (st *State) Archive(c *Item) []*Item {
	view := RequestView(st.PathTo(c.Parent))
	first, last := stretchIn(view, c.Replaces)
	if first < 0 {
		return nil
	}
	return view[first : last+1]
}

// stretchIn finds the stretch replaces names in view, or -1.
func stretchIn(view []*Item, replaces []string) (first, last int) {
	first, last = -1, -1
	for i, o := range view {
		if o.ID == replaces[0] {
			first = i
		}
		if o.ID == replaces[1] {
			last = i
		}
	}
	if first < 0 || last < first {
		return -1, -1
	}
	return first, last
}
