package engine

import (
	"context"
	"fmt"

	"cairn/engine/internal/tools"
)

// The file tools: write, edit and rm, each a tools.Plan run line first by
// runTool (tools_run.go); package tools' doc draws the steps.

// ToolWrite is the write tool: path gets content, created with its folders
// when missing. An existing file keeps its permission bits; a new one gets
// 0666 less the umask, as a shell's redirection would make it.
func (s *Session) ToolWrite(ctx context.Context, path string, content []byte, opts ...ToolOptions) (*ToolAnswer, error) {
	return s.runTool(ctx, "write", path, opts, tools.Write{Content: content})
}

// ToolEdit is the edit tool: the one occurrence of old in path becomes repl.
// No occurrence, or more than one, is ErrBadInput and leaves the file as
// it was. The edit is made to the content its pre-image captured.
func (s *Session) ToolEdit(ctx context.Context, path, old, repl string, opts ...ToolOptions) (*ToolAnswer, error) {
	if old == "" {
		return nil, fmt.Errorf("%w: the text to replace is empty", ErrBadInput)
	}
	o, _ := toolOptions(opts) // runTool refuses more than one
	return s.runTool(ctx, "edit", path, opts, tools.Replace{Old: old, Repl: repl, All: o.ReplaceAll})
}

// ToolRm is the rm tool: it deletes a file or a symbolic link (never a
// folder).
func (s *Session) ToolRm(ctx context.Context, path string, opts ...ToolOptions) (*ToolAnswer, error) {
	return s.runTool(ctx, "rm", path, opts, tools.Remove{})
}
