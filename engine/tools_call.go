package engine

import "fmt"

// ToolOptions are the optional settings of a file tool (ToolWrite, ToolEdit,
// ToolRm, ToolPatch). Pass at most one.
type ToolOptions struct {
	// Call is the id of the item the change belongs to, written as the
	// change line's "call": the tool_call item that ran the tool, or a
	// user prompt. It must name a tool_call or user item of the session.
	// Empty: the user prompt that began the turn (the newest user item on
	// the head path), or none in a conversation that has no prompt yet.
	Call string
	// ReplaceAll, for ToolEdit: replace every occurrence of the old text
	// (at least one); without it the old text must occur exactly once.
	ReplaceAll bool
}

// toolOptions is the one ToolOptions of a file tool's variadic argument.
func toolOptions(opts []ToolOptions) (ToolOptions, error) {
	switch len(opts) {
	case 0:
		return ToolOptions{}, nil
	case 1:
		return opts[0], nil
	}
	return ToolOptions{}, fmt.Errorf("%w: %d tool options given; pass at most one", ErrBadInput, len(opts))
}

// callFor is the "call" of a change line: call when it names a tool_call or
// user item of the session, else the user prompt that began the turn when
// call is empty.
func (s *Session) callFor(call string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if call == "" {
		return s.st.TurnPrompt(), nil
	}
	it := s.st.Items[call]
	if it == nil {
		return "", noItem(call, s.st.ID)
	}
	if it.Type != ToolCall && it.Type != User {
		return "", fmt.Errorf("%w: item %s is a %s item; a change belongs to a tool_call or user item", ErrBadInput, call, it.Type)
	}
	return call, nil
}
