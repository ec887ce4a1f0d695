package tools

import (
	"fmt"

	"cairn/engine/internal/errs"
)

// Options are the optional settings of a file tool (the engine's
// ToolWrite, ToolEdit, ToolRm, ToolPatch). Pass at most one.
type Options struct {
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

// OneOption is the one Options of a file tool's variadic argument.
func OneOption(opts []Options) (Options, error) {
	switch len(opts) {
	case 0:
		return Options{}, nil
	case 1:
		return opts[0], nil
	}
	return Options{}, fmt.Errorf("%w: %d tool options given; pass at most one", errs.ErrBadInput, len(opts))
}
