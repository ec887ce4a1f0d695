package engine

import (
	"context"
	"fmt"

	"cairn/engine/internal/overlap"
	"cairn/engine/internal/patch"
	"cairn/engine/internal/tools"
	"cairn/internal/vfs"
)

// The apply_patch file tool: one call that changes several files under
// one change line, in the steps of the other file tools for every file at
// once; package tools' doc draws them.

// ToolPatchName is the tool name apply_patch's change lines carry.
const ToolPatchName = "apply_patch"

// ToolPatch is the apply_patch tool: a git diff or a "*** Begin Patch"
// envelope applied to the workspace's files, all or none, under one
// snapshot. A bad patch is ErrBadInput, one that does not apply a
// *PatchError; either changes nothing.
func (s *Session) ToolPatch(ctx context.Context, text []byte, opts ...ToolOptions) (*ToolAnswer, error) {
	files, err := patch.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	return s.runPatch(ctx, files, opts)
}

// PatchError refuses a patch that does not apply; nothing was changed.
type PatchError = tools.PatchError

// runPatch runs apply_patch on the parsed files, line first: the steps of
// runTool, over every file of the patch, with one change line.
func (s *Session) runPatch(ctx context.Context, files []*patch.File, opts []ToolOptions) (*ToolAnswer, error) {
	s.busy.RLock()
	defer s.busy.RUnlock()
	if s.isClosed() {
		return nil, fmt.Errorf("engine: session %s is closed", s.ID())
	}
	opt, err := toolOptions(opts)
	if err != nil {
		return nil, err
	}
	call, err := s.callFor(opt.Call)
	if err != nil {
		return nil, err
	}
	cfg, err := s.config()
	if err != nil {
		return nil, err
	}
	fsys, done, err := s.ws.files()
	if err != nil {
		return nil, err
	}
	defer done()
	// The workspace call lock, shared, as every file tool holds it: no
	// file revert runs while the patch does (calls_lock.go).
	leave, err := s.enterCall(ctx, true, "nothing was changed")
	if err != nil {
		return nil, err
	}
	defer leave()
	pfs, err := tools.PlanPatch(patchNames{s.ws, fsys, cfg}, fsys, files)
	if err != nil {
		return nil, err
	}
	r := s.toolRun(ToolPatchName, call, cfg.Snapshots, fsys)
	if err := r.CapturePatch(ctx, pfs); err != nil {
		return nil, err
	}
	var paths []string
	for _, f := range r.FCs {
		paths = append(paths, f.Path)
	}
	unit := s.unitBeginOrSay(ctx, overlap.Scope{Paths: paths})
	r.Stage()
	s.files.Begin()
	defer s.files.End()
	return s.makeToolRun(ctx, r, unit)
}

// patchNames resolves apply_patch's names inside the workspace, as write,
// edit and rm resolve theirs (newToolRun).
type patchNames struct {
	w    *Workspace
	fsys vfs.FS
	cfg  Config
}

func (p patchNames) Rel(name string) (string, error) {
	rel, err := p.w.relPath(name)
	if err != nil {
		return "", err
	}
	if tools.FencedOff(p.fsys, rel) {
		return "", fmt.Errorf("%w: %s is inside cairn's state folder", ErrBadInput, name)
	}
	if err := p.w.leadsOut(p.fsys, rel, name); err != nil {
		return "", err
	}
	if err := tools.CheckPath(p.fsys, p.cfg.Tools.WriteVCSFolders, rel, name); err != nil {
		return "", err
	}
	return rel, nil
}

func (p patchNames) LinkedOut(name string) error { return p.w.linkedOut(name) }
