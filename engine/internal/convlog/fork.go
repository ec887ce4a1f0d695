package convlog

import "encoding/json"

// Forking copies the selected ancestor path into a new session. Where the
// fork starts follows the seed's table:
//
//	selected item          child's history                         composer
//	user prompt            stops before the prompt                 the prompt's text,
//	                                                               kept as the child's draft
//	assistant, reasoning   includes the item                       empty
//	completed tool         includes the call and its result(s)     empty
//	incomplete tool call   includes the call; an "unavailable"     empty
//	                       result is supplied

// Boundary applies the seed's table to a selected item, for a fork and a
// conversation revert alike: the item the kept history ends at ("" for
// none), whether the item is a prompt that goes back to the composer, and
// the tool call left without a result. A completed tool call keeps its
// result(s); an incomplete one ends the history at the call, where a fork
// supplies an "unavailable" result and a revert (which adds no item) leaves
// it for the runtime's history repair.
func (st *State) Boundary(sel *Item) (end string, prompt bool, incomplete *Item) {
	switch sel.Type {
	case User:
		return sel.Parent, true, nil
	case ToolCall:
		// Completed: include the call and its results, which sit after it
		// on the parent's head path (or anywhere below it).
		if res := st.ResultsOf(sel); len(res) > 0 {
			return res[len(res)-1].ID, false, nil
		}
		return sel.ID, false, sel
	}
	return sel.ID, false, nil
}

// ForkPath applies the fork table: the items the child keeps, the composer
// text, and the tool call that needs an "unavailable" result supplied.
func (st *State) ForkPath(sel *Item) (path []*Item, draft string, supply *Item) {
	end, prompt, supply := st.Boundary(sel)
	if prompt {
		draft = sel.Text
	}
	return st.PathTo(end), draft, supply
}

// ResultsOf finds the chain of tool_result items answering call, following
// the call's descendants on one path.
func (st *State) ResultsOf(call *Item) []*Item {
	var out []*Item
	cur := call.ID
	for {
		var next *Item
		for _, id := range st.Order {
			it := st.Item(id)
			if it.Parent == cur && it.Type == ToolResult && it.Call == call.ID {
				next = it
			}
		}
		if next == nil {
			return out
		}
		out = append(out, next)
		cur = next.ID
	}
}

// Child is what a fork's items journal says besides the parent's lines it
// copies.
type Child struct {
	Session, Path, Build, Branch string
	Ref                          ForkRef
	At                           Time
	Title                        string
	// Supplied is the id of the "unavailable" result supplied for the
	// incomplete call the path ends at, when it does.
	Supplied string
	// Draft, DraftPayload and DraftAttachments are the prompt handed back
	// to the composer, when the fork is at one.
	Draft            string
	DraftPayload     *Payload
	DraftAttachments []Attachment
}

// ForkLines are the lines of a fork's items journal, in order: its
// session line, the parent's item lines for the kept path (lines, payload
// references as they are: no payload is read or stored again), the result
// supplied for supply, the head, the draft, the title, and the plan, model
// and settings of the parent (st).
func ForkLines(st *State, lines []*Line, keep []*Item, supply *Item, c Child) []any {
	out := []any{&Line{V: 1, Kind: KindSession, Session: c.Session, Path: c.Path, At: &c.At, ForkOf: &c.Ref, Build: c.Build, Branch: c.Branch}}
	for _, l := range lines {
		out = append(out, l)
	}
	head := ""
	if len(keep) > 0 {
		head = keep[len(keep)-1].ID
	}
	if supply != nil {
		text := "[tool result unavailable: the call did not complete before the fork]"
		out = append(out, &Line{V: 1, Kind: KindItem, ID: c.Supplied, Parent: &supply.ID, Type: ToolResult, At: &c.At,
			Call: supply.ID, Status: "unavailable", Text: &text})
		head = c.Supplied
	}
	out = append(out, &Line{V: 1, Kind: KindHead, To: &head, Why: "fork", At: &c.At})
	if c.Draft != "" || c.DraftPayload != nil || len(c.DraftAttachments) > 0 {
		// The prompt goes back to the composer and stays there: the child
		// holds it as its draft until a prompt is sent, with its
		// attachments, named by the same objects.
		out = append(out, DraftLine(c.At, c.Draft, c.DraftPayload, c.DraftAttachments))
	}
	out = append(out, &Line{V: 1, Kind: KindTitle, Title: c.Title, Source: "user", At: &c.At})
	if st.Plan != nil || st.Model != "" {
		out = append(out, &Line{V: 1, Kind: KindTurn, At: &c.At, Turn: &TurnState{Plan: st.Plan, Model: st.Model, Build: c.Build}})
	}
	if len(st.Meta) > 0 {
		m, _ := json.Marshal(st.Meta)
		out = append(out, &Line{V: 1, Kind: KindMeta, Meta: m, At: &c.At})
	}
	return out
}

// ForkResult says what a fork made.
type ForkResult struct {
	Session string  `json:"session"`
	ForkOf  ForkRef `json:"fork_of"`
	Title   string  `json:"title"`
	// Draft is the text to put back in the composer (a fork at a user prompt).
	Draft string `json:"draft,omitempty"`
	// DraftUnavailable is set when that prompt's text could not be read
	// back; Draft is empty then.
	DraftUnavailable *Unavailable `json:"draft_unavailable,omitempty"`
	// DraftAttachments are that prompt's attachments, in the child's
	// draft with its text (shared objects; a live-only one is Gone).
	DraftAttachments []Attachment `json:"draft_attachments,omitempty"`
	// Tasks are the sub-agent tasks the child holds: those whose call is
	// on its path (engine/internal/tasks/copy.go).
	Tasks []string `json:"tasks,omitempty"`
}
