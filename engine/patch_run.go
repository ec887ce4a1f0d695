package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/fstate"
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

// ToolPatch is the apply_patch tool: it applies text, a git diff (git diff
// or git diff --binary output: renames, copies, mode changes, new, deleted
// and binary files) or a "*** Begin Patch" envelope, to the workspace's
// files, all of them or none. A malformed patch, or one naming a file
// outside the workspace, a folder or a symbolic link, is ErrBadInput; one
// that does not apply is a *PatchError. Either changes nothing. The answer
// names every file the patch changed and the one snapshot that undoes them
// all.
func (s *Session) ToolPatch(ctx context.Context, text []byte, opts ...ToolOptions) (*ToolAnswer, error) {
	files, err := patch.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	return s.runPatch(ctx, files, opts)
}

// PatchError is the refusal of a patch that does not apply to the files as
// they are: the file and, when one, the hunk (numbered from 1) that does
// not fit. Nothing was changed. It wraps ErrRefused.
type PatchError = tools.PatchError

// Running apply_patch, in the steps drawn above: the
// single-file steps of tools_run.go, over every file of the patch, with one
// change line. A patchRun carries a toolRun for what the two share (the
// session, the line, the pre-images, the settling of the undo stack).

// patchRun is one call of apply_patch in progress.
type patchRun struct {
	t     *toolRun
	files []*tools.PatchFile
	fcs   []changes.FileChange // the line's files, in files' order
	jobs  []*tools.Job         // each file's new content; nil when removed
}

// runPatch runs apply_patch on the parsed files, line first.
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
	r := &patchRun{files: pfs, t: &toolRun{s: s, tool: ToolPatchName, rel: pfs[0].Rel, call: call, sc: cfg.Snapshots, fsys: fsys}}
	if err := r.captureBefore(ctx); err != nil {
		return nil, err
	}
	var paths []string
	for _, f := range r.fcs {
		paths = append(paths, f.Path)
	}
	unit := s.unitBeginOrSay(ctx, overlap.Scope{Paths: paths})
	r.stage()
	s.files.begin()
	defer s.files.end()
	r.recordLine()
	r.t.waitPrevious()
	dirs, leftovers, err := r.swapIn(ctx)
	if err != nil {
		return nil, err
	}
	ans := r.settle()
	if ans.Snapshot != nil {
		s.unitEnded(unit, nil, nil, r.t.unitMarker(r.fcs), r.t.rec.ID)
	}
	redo := r.t.redoable()
	for i, l := range leftovers {
		if i < len(leftovers)-1 {
			s.files.later(s.ws, fstate.DirSet{}, l, redo)
		} else {
			s.files.later(s.ws, dirs, l, redo)
		}
	}
	if len(leftovers) == 0 {
		s.files.later(s.ws, dirs, "", redo)
	}
	return ans, nil
}

// captureBefore captures every file's pre-image, after the plan read the
// files: a file that changed in between refuses the patch, as does a
// required pre-image not captured or one the store could not keep.
func (r *patchRun) captureBefore(ctx context.Context) error {
	t, s := r.t, r.t.s
	t.pre = s.newPreImages(ctx, t.sc, true)
	for _, pf := range r.files {
		f := t.pre.Capture(ctx, t.fsys, pf.Rel)
		if err := ctx.Err(); err != nil {
			return err
		}
		if t.pre.On && !f.Before.IsSkipped() && !fstate.Same(f.Before, pf.Old.FState()) {
			return refusedf("%s changed while the patch was applied; nothing was changed", pf.Rel)
		}
		r.fcs = append(r.fcs, f)
	}
	if err := t.pre.refuse(ctx, t.tool); err != nil {
		return err
	}
	for _, f := range r.fcs {
		if f.Before != nil && f.Before.Skipped == fstate.SkipStore {
			return noPreImage(t.tool, f.Path, t.pre.PutErr)
		}
	}
	return nil
}

// stage starts staging every new content beside its name.
func (r *patchRun) stage() {
	t := r.t
	r.jobs = make([]*tools.Job, len(r.files))
	for i, pf := range r.files {
		if !pf.New.Exists {
			continue
		}
		t.s.noteStaging(pf.Rel)
		r.jobs[i] = tools.StageContent(t.fsys, pf.Rel, pf.New.Data, pf.New.Perm)
		r.fcs[i].After = r.jobs[i].After
	}
}

// recordLine appends and syncs the one change line naming every file
// (toolRun.recordLine, for many files).
func (r *patchRun) recordLine() {
	t, s := r.t, r.t.s
	t.record = t.pre.On && t.pre.Objs != nil
	if t.pre.On && !t.record {
		s.notice("no snapshot was taken: the snapshot store cannot be written")
		for _, f := range r.fcs {
			if f.Before == nil {
				t.pre.Skipped = append(t.pre.Skipped, f.Path)
			}
		}
	}
	if !t.record {
		return
	}
	t.rec = s.snaps.NewRecord(mkTime(s.ws.s.Now()), t.tool, t.call, s.newestItem(), r.fcs)
	for _, j := range r.jobs {
		if j != nil {
			j.Sync() // with the line's (Job.Sync)
		}
	}
	if t.lineErr = s.writeChanges(ahead, t.rec); t.lineErr != nil {
		s.abortChange(t.rec.ID)
	}
}

// swapIn waits for every staged content, then puts each file in place, in
// the patch's order. It refuses the patch (cancelling its line, discarding
// what was staged) when the line failed and a pre-image is required or
// would be lost, or when a content could not be staged. A file that cannot
// be put in place puts back the files before it (putBack). It returns the
// folders to sync and the replaced files to remove, in the background.
func (r *patchRun) swapIn(ctx context.Context) (fstate.DirSet, []string, error) {
	t, s := r.t, r.t.s
	staged := make([]*fstate.Staged, len(r.jobs))
	var stageErr error
	for i, j := range r.jobs {
		if j == nil {
			continue
		}
		var err error
		if staged[i], err = j.Wait(); err != nil && stageErr == nil {
			stageErr = fmt.Errorf("%s: %w", r.files[i].Rel, err)
		}
	}
	discard := func(from int) {
		for _, st := range staged[from:] {
			if st != nil {
				st.Discard(t.fsys)
			}
		}
	}
	fail := func(err error) (fstate.DirSet, []string, error) {
		discard(0)
		if t.record && t.lineErr == nil {
			s.abortChange(t.rec.ID)
		}
		return nil, nil, err
	}
	if t.lineErr != nil {
		for _, f := range r.fcs {
			if s.ws.required(t.sc, f.Path) {
				t.pre.Denied = append(t.pre.Denied, requiredFile{Path: f.Path, Reason: fstate.SkipStore + ": " + t.lineErr.Error()})
			}
		}
		if len(t.pre.Denied) > 0 {
			return fail(t.pre.refuse(ctx, t.tool))
		}
		for _, f := range r.fcs {
			if f.Before != nil && !f.Before.IsSkipped() {
				return fail(noPreImage(t.tool, f.Path, t.lineErr))
			}
		}
	}
	if errors.Is(stageErr, fstate.ErrNotFolder) {
		return fail(fmt.Errorf("%w: %s: %w", ErrBadInput, t.tool, stageErr))
	}
	if stageErr != nil {
		return fail(fmt.Errorf("engine: %s %w", t.tool, stageErr))
	}
	dirs := fstate.DirSet{}
	var leftovers []string
	replaced := make([]string, len(r.files))
	for i, pf := range r.files {
		var err error
		if staged[i] == nil {
			err = fstate.Remove(t.fsys, pf.Rel, dirs)
		} else {
			replaced[i], err = staged[i].Exchange(t.fsys, dirs)
			staged[i] = nil
		}
		if err != nil {
			discard(i + 1)
			return nil, nil, r.putBack(ctx, i, replaced, dirs, fmt.Errorf("%s: %w", pf.Rel, err))
		}
		if replaced[i] != "" {
			leftovers = append(leftovers, replaced[i])
		}
	}
	return dirs, leftovers, nil
}

// putBack undoes the first n files of a patch whose file n could not be
// put in place (why), as a plan the session's Applier runs: a file
// swapped with its old content gets it back by swapping again, any other
// its pre-image; then the change is cancelled and nothing was changed. A
// file that cannot be put back leaves the patch made in part: the change
// stays, and undo puts back every file it can. dirs is the folders the
// patch changed so far, synced after the plan's own.
func (r *patchRun) putBack(ctx context.Context, n int, replaced []string, dirs fstate.DirSet, why error) error {
	t, s := r.t, r.t.s
	recorded := t.record && t.lineErr == nil
	plan := changes.Plan{Files: make([]changes.File, 0, n)}
	for i := n - 1; i >= 0; i-- {
		before := r.fcs[i].Before
		canPut := recorded && !before.IsSkipped() && fstate.Restorable(s.snapObjects(), before)
		plan.Files = append(plan.Files, changes.File{Path: r.files[i].Rel, To: before, SwapBack: replaced[i], Leave: !canPut})
	}
	res := s.apply.Apply(ctx, t.fsys, s.snapObjects(), plan)
	var stuck []string
	for k, f := range plan.Files {
		if !res.Written[k] {
			stuck = append(stuck, f.Path)
		}
	}
	temps := res.Temps // temp files swapped back but not removed
	syncErr := res.Sync
	if err := dirs.Sync(t.fsys); syncErr == nil {
		syncErr = err
	}
	// A temp file left says so: it holds the patched content of a file
	// that was put back, under cairn's temp name, until it is collected.
	withTemps := func(err error) error {
		if len(temps) == 0 {
			return err
		}
		return fmt.Errorf("%w; a temporary file of cairn could not be removed and is left for cleanup (%w)", err, errors.Join(temps...))
	}
	if len(stuck) == 0 && syncErr == nil {
		if recorded {
			s.abortChange(t.rec.ID)
		}
		return withTemps(fmt.Errorf("engine: %s: %w; nothing was changed", t.tool, why))
	}
	if recorded {
		r.settle()
		return withTemps(fmt.Errorf("engine: %s: %w; the patch is applied in part (%s could not be put back): undo %s puts back every file",
			t.tool, why, strings.Join(stuck, ", "), t.rec.ID))
	}
	return withTemps(fmt.Errorf("engine: %s: %w; the patch is applied in part: %s could not be put back", t.tool, why, strings.Join(stuck, ", ")))
}

// settle brings the undo stack up to the change made and returns the
// tool's answer, naming every file.
func (r *patchRun) settle() *ToolAnswer {
	t := r.t
	ans := t.settleStack()
	ans.Files = make([]string, len(r.files))
	for i, pf := range r.files {
		ans.Files[i] = t.s.ws.absPath(pf.Rel)
	}
	if t.record && t.lineErr != nil {
		ans.Skipped = append([]string{}, ans.Files...)
	}
	return ans
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
