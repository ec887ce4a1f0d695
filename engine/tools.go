package engine

import (
	"context"
	"fmt"

	"cairn/engine/internal/tools"
)

// The file tools: write, edit and rm (apply_patch, which changes several
// files under one change line, is in patch.go). Each changes one file through the
// workspace's os.Root, recorded line first (runTool, tools_run.go):
//
//  1. the pre-image is captured: inline in the change line when small,
//     else a durable object;
//  2. the change line, naming the pre-image and the after state the tool is
//     about to make, is appended and synced while the new content is staged
//     in a temp file beside the name and fsynced, and while the folder sync
//     of the tool before it (step 4) may still be under way;
//  3. only when all three are over is the temp file swapped with the file
//     (its old content removed in the background) or renamed over the
//     name, or the file removed;
//  4. the folder is synced in the background (fileSyncs): the next file
//     tool waits for it before its step 3, every other line of the changes
//     journal and the end of the turn before they start.
//
// A tool that fails after its line cancels the change with an abort line;
// a crash in between is settled by the next owner (loadChanges), which
// judges the two newest changes together. A
// tool that fails before records nothing. A tool that would replace or
// remove a file whose pre-image cannot be recorded (the store or the
// changes journal cannot be written) is refused before it changes anything
// (noPreImage).

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
