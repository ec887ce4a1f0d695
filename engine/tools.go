package engine

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"

	"cairn/engine/internal/fstate"
	"cairn/internal/vfs"
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

// maxEditBytes is the largest file the edit tool reads.
const maxEditBytes = 64 << 20

// toolEdit is what a file tool will do to its file: write content (with
// the executable bit or not), or remove it.
type toolEdit struct {
	content []byte
	exec    bool
	remove  bool
	cur     fs.FileInfo // the file as the plan found it (Lstat); nil when it did not look, or found none
}

// toolPlan is how a file tool works out what it will do to its file
// (writePlan, editPlan, rmPlan). Without NeedsContent (write, rm) the edit
// does not depend on the file's content: Plan runs before the pre-image is
// captured (with mode "" and data nil), so the new content is staged
// meanwhile. With it (edit), Plan sees the file as captured, before its
// pre-image is stored: its data and F mode, or nil and "" when the capture
// did not read it (absent, too large, snapshots off), and the tool reads
// the file itself. An error refuses the tool before anything is written.
type toolPlan interface {
	NeedsContent() bool
	Plan(fsys vfs.FS, rel, mode string, data []byte) (*toolEdit, error)
}

// writePlan is the write tool's: the file gets content, keeping its
// executable bit.
type writePlan struct{ content []byte }

func (writePlan) NeedsContent() bool { return false }

func (p writePlan) Plan(fsys vfs.FS, rel, _ string, _ []byte) (*toolEdit, error) {
	exec := false
	fi, err := fsys.Lstat(rel)
	if err == nil {
		if fi.IsDir() {
			return nil, fmt.Errorf("%w: %s is a folder", ErrBadInput, rel)
		}
		exec = fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
	} else {
		fi = nil
	}
	return &toolEdit{content: p.content, exec: exec, cur: fi}, nil
}

// editPlan is the edit tool's: the one occurrence of old (every one, with
// all) becomes repl, in the content the pre-image captured.
type editPlan struct {
	old, repl string
	all       bool
}

func (editPlan) NeedsContent() bool { return true }

func (p editPlan) Plan(fsys vfs.FS, rel, mode string, data []byte) (*toolEdit, error) {
	var b []byte
	var exec bool
	var err error
	if data != nil && mode != fstate.ModeLink {
		b, err = checkEdit(data, rel, p.old, p.all)
		exec = mode == fstate.ModeExec
	} else {
		b, exec, err = readForEdit(fsys, rel, p.old, p.all)
	}
	if err != nil {
		return nil, err
	}
	n := 1
	if p.all {
		n = -1
	}
	return &toolEdit{content: bytes.Replace(b, []byte(p.old), []byte(p.repl), n), exec: exec}, nil
}

// rmPlan is the rm tool's: the file or symbolic link goes (never a folder).
type rmPlan struct{}

func (rmPlan) NeedsContent() bool { return false }

func (rmPlan) Plan(fsys vfs.FS, rel, _ string, _ []byte) (*toolEdit, error) {
	fi, err := fsys.Lstat(rel)
	switch {
	case vfs.IsNotExist(err):
		return nil, fmt.Errorf("%w: no file %s", ErrBadInput, rel)
	case err != nil:
		return nil, err
	case fi.IsDir():
		return nil, fmt.Errorf("%w: %s is a folder", ErrBadInput, rel)
	}
	return &toolEdit{remove: true}, nil
}

// ToolWrite is the write tool: path gets content, created with its folders
// when missing. An existing file keeps its permission bits; a new one gets
// 0666 less the umask, as a shell's redirection would make it.
func (s *Session) ToolWrite(ctx context.Context, path string, content []byte, opts ...ToolOptions) (*ToolAnswer, error) {
	return s.runTool(ctx, "write", path, opts, writePlan{content: content})
}

// ToolEdit is the edit tool: the one occurrence of old in path becomes repl.
// No occurrence, or more than one, is ErrBadInput and leaves the file as
// it was. The edit is made to the content its pre-image captured.
func (s *Session) ToolEdit(ctx context.Context, path, old, repl string, opts ...ToolOptions) (*ToolAnswer, error) {
	if old == "" {
		return nil, fmt.Errorf("%w: the text to replace is empty", ErrBadInput)
	}
	o, _ := toolOptions(opts) // runTool refuses more than one
	return s.runTool(ctx, "edit", path, opts, editPlan{old: old, repl: repl, all: o.ReplaceAll})
}

// ToolRm is the rm tool: it deletes a file or a symbolic link (never a
// folder).
func (s *Session) ToolRm(ctx context.Context, path string, opts ...ToolOptions) (*ToolAnswer, error) {
	return s.runTool(ctx, "rm", path, opts, rmPlan{})
}

// readForEdit reads a regular file and checks old occurs in it once (or,
// all, at least once).
func readForEdit(fsys vfs.FS, rel, old string, all bool) ([]byte, bool, error) {
	fi, err := fsys.Lstat(rel)
	if vfs.IsNotExist(err) {
		return nil, false, fmt.Errorf("%w: no file %s", ErrBadInput, rel)
	}
	if err != nil {
		return nil, false, err
	}
	if !fi.Mode().IsRegular() {
		return nil, false, fmt.Errorf("%w: %s is not a regular file", ErrBadInput, rel)
	}
	f, err := fsys.OpenFile(rel, os.O_RDONLY, 0)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	b, err := vfs.ReadSized(f, fi.Size(), maxEditBytes)
	if err != nil {
		return nil, false, err
	}
	b, err = checkEdit(b, rel, old, all)
	return b, fi.Mode().Perm()&0o111 != 0, err
}

// checkEdit checks content b of rel may be edited: it is not too large and
// old occurs in it once (or, all, at least once).
func checkEdit(b []byte, rel, old string, all bool) ([]byte, error) {
	if len(b) > maxEditBytes {
		return nil, fmt.Errorf("%w: %s is larger than %d bytes", ErrBadInput, rel, maxEditBytes)
	}
	switch n := bytes.Count(b, []byte(old)); {
	case n == 1 || n > 1 && all:
		return b, nil
	case n == 0:
		return nil, fmt.Errorf("%w: the text to replace is not in %s", ErrBadInput, rel)
	default:
		return nil, fmt.Errorf("%w: the text to replace occurs %d times in %s; give more context, or replace every one", ErrBadInput, n, rel)
	}
}
