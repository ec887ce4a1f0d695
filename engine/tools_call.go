package engine

import (
	"fmt"

	"cairn/engine/internal/tools"
)

// ToolOptions are a file tool's optional settings; pass at most one.
type ToolOptions = tools.Options

// toolOptions is the one ToolOptions of a file tool's variadic argument.
func toolOptions(opts []ToolOptions) (ToolOptions, error) { return tools.OneOption(opts) }

// callFor is the "call" of a change line: call when it names a tool_call or
// user item of the session, else the user prompt that began the turn when
// call is empty.
func (s *Session) callFor(call string) (string, error) {
	if s.opts.Elsewhere != nil {
		return s.opts.Elsewhere().Call, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if call == "" {
		return s.st.TurnPrompt(), nil
	}
	it := s.st.Item(call)
	if it == nil {
		return "", noItem(call, s.st.ID)
	}
	if it.Type != ToolCall && it.Type != User {
		return "", fmt.Errorf("%w: item %s is a %s item; a change belongs to a tool_call or user item", ErrBadInput, call, it.Type)
	}
	return call, nil
}
