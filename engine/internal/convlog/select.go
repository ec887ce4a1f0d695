package convlog

import (
	"fmt"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/errs"
)

// SelectChanges is the selection of item of the conversation: the calls
// whose change lines count for it (a tool call: itself; a user prompt:
// every item of its turn; "": the newest recorded call).
func (st *State) SelectChanges(item string) (*changes.Selection, error) {
	if item == "" {
		return &changes.Selection{}, nil
	}
	it := st.Item(item)
	switch {
	case it == nil:
		return nil, errs.NotFoundf("no item %q in session %s", item, st.ID)
	case it.Type == ToolCall:
		return &changes.Selection{Item: item, Calls: []string{item}}, nil
	case it.Type == User:
		turn := st.InTurn(item)
		sel := &changes.Selection{Item: item, Turn: true}
		for _, id := range st.Order {
			if turn(id) {
				sel.Calls = append(sel.Calls, id)
			}
		}
		return sel, nil
	}
	return nil, fmt.Errorf("%w: item %s is a %s: give a tool call, or a user prompt for its whole turn", errs.ErrBadInput, item, it.Type)
}
