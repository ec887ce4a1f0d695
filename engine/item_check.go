package engine

import (
	"fmt"

	"cairn/engine/ids"
)

// checkLinks refuses an item whose links say something false: a "call"
// names the tool_call a tool_result answers, so only a tool_result has one,
// and it must name a tool_call on the path the result joins (its parent or
// an ancestor of it). Fork and revert boundaries, compaction and history
// repair read "call"; a wrong one would silently move them. A tool_result
// without a call is still taken from the library (a runtime may record a
// result it cannot tie to a call); the cairn command requires one. The
// outputs an item names must be output ids: a fork copies them by name.
func (st *state) checkLinks(it *Item) error {
	for _, o := range it.Outputs {
		if !ids.Valid(o) {
			return fmt.Errorf("%w: %q is not an output id", ErrBadInput, o)
		}
	}
	if it.Call == "" {
		return nil
	}
	if it.Type != ToolResult {
		return fmt.Errorf("%w: only a tool_result answers a call (this item is %s)", ErrBadInput, it.Type)
	}
	call := st.items[it.Call]
	if call == nil {
		return fmt.Errorf("%w: call %q: no such item in session %s", ErrBadInput, it.Call, st.id)
	}
	if call.Type != ToolCall {
		return fmt.Errorf("%w: call %q is not a tool_call but %s", ErrBadInput, it.Call, call.Type.WithArticle())
	}
	// Walk up from the parent: the call is usually a few items back.
	for id, n := it.Parent, 0; id != "" && n <= len(st.items); n++ {
		if id == it.Call {
			return nil
		}
		p := st.items[id]
		if p == nil {
			break
		}
		id = p.Parent
	}
	return fmt.Errorf("%w: call %s is not on the path this result joins", ErrBadInput, it.Call)
}
