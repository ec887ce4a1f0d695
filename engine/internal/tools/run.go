package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/errs"
	"cairn/engine/internal/fstate"
	"cairn/engine/internal/snapshot"
	"cairn/internal/timefmt"
	"cairn/internal/vfs"
	"cairn/objects"
)

// Running a file tool, line first, in the steps drawn in doc.go. The
// engine's runTool and runPatch take the session's locks and gather the
// call's input; a Run carries the call through Capture (or CapturePatch
// and Stage) and Make: the change line, the wait for the folder syncs
// before it, the swap, and the settling of the undo stack. A single-file
// tool is a one-file patch: both share the line, the swap and the
// settling.

// Host is what a Run needs of its session: answers name files by their
// absolute path; pre-images are captured under the session's snapshot
// settings (inline when small); a refusal for a required pre-image is
// recorded; a folder a temp file is staged in is noted in the session's
// hint; lines are written to the changes journal in a mode; a change whose
// file was not changed is aborted; a failed write refolds the stack from
// the journal; notices reach the user.
type Host interface {
	AbsPath(rel string) string
	Now() timefmt.Time
	NewestItem() changes.ItemRef
	Noticef(format string, a ...any)
	PreImages(ctx context.Context) *snapshot.PreImages
	DenyRequired(ctx context.Context, tool string, denied []snapshot.RequiredFile, journal bool)
	NoteStaging(rel string)
	Write(mode changes.Durability, lines ...any) error
	Abort(id string)
	Refold()
}

// Run is one call of a file tool at work, over the session's undo stack,
// folder syncs, workspace files, object store and applier. The caller
// holds the session's locks (the engine's tools_run.go says which).
type Run struct {
	Host    Host
	Stack   *changes.Stack
	Syncs   *changes.Syncs
	FS      vfs.FS
	Objs    *objects.Store
	Applier *changes.Applier
	Session string // the session's id, which the answer names
	Tool    string
	Call    string
	Limits  changes.Limits

	Pre *snapshot.PreImages
	// FCs is the line's files, each with its pre-image and after state.
	FCs []changes.FileChange
	// Rec is the change line, when one is written (Recorded).
	Rec     changes.ChangeLine
	patch   []*PatchFile // apply_patch's files; nil for a single-file tool
	rels    []string     // the files' names, in the line's order
	jobs    []*Job       // each file's new content; nil when removed
	record  bool         // a change line is written
	lineErr error        // why the change line was not written
}

// Capture plans a single-file tool's edit of rel, captures the file's
// pre-image and stages the new content: during the capture when the edit
// does not depend on the file's content (write, rm), else after it, from
// the file as captured or as the tool reads it when the capture did not.
// It refuses the tool when its input is bad or a pre-image it needs was
// not captured; on error nothing is left staged.
func (r *Run) Capture(ctx context.Context, rel string, plan Plan) error {
	r.rels = []string{rel}
	var ed *Edit
	if !plan.NeedsContent() {
		var err error
		if ed, err = plan.Plan(r.FS, rel, "", nil); err != nil {
			return err
		}
	}
	// The session is owned (its hint made) before the first temp file is:
	// the hint names the folder first (the engine's temps.go).
	r.Pre = r.Host.PreImages(ctx)
	r.Host.NoteStaging(rel)
	var job *Job
	if ed != nil {
		job = Start(r.FS, rel, ed)
	}
	bail := func(err error) error {
		if job != nil {
			job.Discard(r.FS)
		}
		return err
	}
	if plan.NeedsContent() {
		r.Pre.Check = func(data []byte, mode string) (err error) {
			ed, err = plan.Plan(r.FS, rel, mode, data)
			return err
		}
	}
	f := r.Pre.Capture(ctx, r.FS, rel)
	if err := ctx.Err(); err != nil {
		return bail(err)
	}
	if r.Pre.CheckErr != nil {
		return r.Pre.CheckErr // nothing staged yet
	}
	if ed == nil { // the capture did not read the file: the tool reads it
		var err error
		if ed, err = plan.Plan(r.FS, rel, "", nil); err != nil {
			return err
		}
	}
	// Bad input is said first: it would change nothing. Then a required
	// pre-image that was not captured refuses the tool.
	if err := r.refuse(ctx); err != nil {
		return bail(err)
	}
	if f.Before != nil && f.Before.Skipped == fstate.SkipStore {
		return bail(noPreImage(r.Tool, rel, r.Pre.PutErr))
	}
	if job == nil {
		job = Start(r.FS, rel, ed)
	}
	f.After = job.After
	r.FCs, r.jobs = []changes.FileChange{f}, []*Job{job}
	return nil
}

// CapturePatch captures the pre-image of every file of a patch, after the
// plan read the files (PlanPatch): a file that changed in between refuses
// the patch, as does a required pre-image not captured or one the store
// could not keep.
func (r *Run) CapturePatch(ctx context.Context, files []*PatchFile) error {
	r.patch = files
	r.Pre = r.Host.PreImages(ctx)
	for _, pf := range files {
		f := r.Pre.Capture(ctx, r.FS, pf.Rel)
		if err := ctx.Err(); err != nil {
			return err
		}
		if r.Pre.On && !f.Before.IsSkipped() && !fstate.Same(f.Before, pf.Old.FState()) {
			return errs.Refusedf("%s changed while the patch was applied; nothing was changed", pf.Rel)
		}
		r.FCs = append(r.FCs, f)
		r.rels = append(r.rels, pf.Rel)
	}
	if err := r.refuse(ctx); err != nil {
		return err
	}
	for _, f := range r.FCs {
		if f.Before != nil && f.Before.Skipped == fstate.SkipStore {
			return noPreImage(r.Tool, f.Path, r.Pre.PutErr)
		}
	}
	return nil
}

// Stage starts staging every new content of a patch beside its name.
func (r *Run) Stage() {
	r.jobs = make([]*Job, len(r.patch))
	for i, pf := range r.patch {
		if !pf.New.Exists {
			continue
		}
		r.Host.NoteStaging(pf.Rel)
		r.jobs[i] = StageContent(r.FS, pf.Rel, pf.New.Data, pf.New.Perm)
		r.FCs[i].After = r.jobs[i].After
	}
}

// Make makes the change captured and staged: it writes the change line,
// waits for the folder syncs of the changes before it, swaps the files in
// and settles the undo stack. It returns the tool's answer, and the
// folders to sync and the replaced files to remove in the background.
func (r *Run) Make(ctx context.Context) (*snapshot.ToolAnswer, fstate.DirSet, []string, error) {
	r.recordLine()
	r.waitPrevious()
	dirs, leftovers, err := r.swapIn(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	return r.settle(), dirs, leftovers, nil
}

// refuse records and returns the refusal of a change that required
// pre-images it could not capture, if any.
func (r *Run) refuse(ctx context.Context) error {
	if len(r.Pre.Denied) == 0 {
		return nil
	}
	r.Host.DenyRequired(ctx, r.Tool, r.Pre.Denied, r.Pre.Objs != nil)
	return &snapshot.RequiredError{Tool: r.Tool, Files: r.Pre.Denied}
}

// recordLine appends and syncs the one change line naming every file
// while the new contents are staged. A line that fails is cancelled (an
// abort line), and the edit goes on without a snapshot unless swapIn
// refuses it.
func (r *Run) recordLine() {
	pre := r.Pre
	r.record = pre.On && pre.Objs != nil
	if pre.On && !r.record {
		r.Host.Noticef("no snapshot was taken: the snapshot store cannot be written")
		for _, f := range r.FCs {
			if f.Before == nil { // made, not replaced: say undo cannot remove it
				pre.Skipped = append(pre.Skipped, f.Path)
			}
		}
	}
	if !r.record {
		return
	}
	r.Rec = r.Stack.NewRecord(r.Host.Now(), r.Tool, r.Call, r.Host.NewestItem(), r.FCs)
	for _, j := range r.jobs {
		if j != nil {
			j.Sync() // with the line's (Job.Sync)
		}
	}
	if r.lineErr = r.Host.Write(changes.Ahead, r.Rec); r.lineErr != nil {
		// Not durable, maybe not written: cancelled.
		r.Host.Abort(r.Rec.ID)
	}
}

// waitPrevious waits for the background folder syncs of the file changes
// before this one, which its line did not wait for (changes.Ahead): its
// file changes only once theirs are durable, so a crash can lose the
// change before it only together with it. The folders of changes that can
// be made again from their lines (Redoable) are left to the end of the
// turn (changes.Syncs). A sync that failed cancels the line, as it would
// have refused the line had it been known (changes.Synced), and the end
// of the turn reports it. A tool without a line waits for every change
// before it.
func (r *Run) waitPrevious() {
	if !r.record || r.lineErr != nil {
		r.Syncs.Wait()
		return
	}
	if err := r.Syncs.FailedStarted(); err != nil {
		r.lineErr = err
		r.Host.Abort(r.Rec.ID)
	}
}

// swapIn waits for every staged content, then puts each file in place, in
// the line's order. It refuses the tool (cancelling its line, discarding
// what was staged) when the line failed and a pre-image is required or
// would be lost, or when a content could not be staged. A patch's file
// that cannot be put in place puts back the files before it (putBack). It
// returns the folders to sync and the replaced files to remove, in the
// background.
func (r *Run) swapIn(ctx context.Context) (fstate.DirSet, []string, error) {
	single := r.patch == nil
	staged := make([]*fstate.Staged, len(r.jobs))
	var stageErr error
	stageAt := 0
	for i, j := range r.jobs {
		if j == nil {
			continue
		}
		var err error
		if staged[i], err = j.Wait(); err != nil && stageErr == nil {
			stageErr, stageAt = err, i
		}
	}
	discard := func(from int) {
		for _, st := range staged[from:] {
			if st != nil {
				st.Discard(r.FS)
			}
		}
	}
	fail := func(err error) (fstate.DirSet, []string, error) {
		discard(0)
		if r.record && r.lineErr == nil {
			r.Host.Abort(r.Rec.ID)
		}
		return nil, nil, err
	}
	if r.lineErr != nil {
		for _, f := range r.FCs {
			if r.Pre.Required(f.Path) {
				r.Pre.Denied = append(r.Pre.Denied, snapshot.RequiredFile{Path: f.Path, Reason: fstate.SkipStore + ": " + r.lineErr.Error()})
			}
		}
		if len(r.Pre.Denied) > 0 {
			return fail(r.refuse(ctx))
		}
		for _, f := range r.FCs {
			if f.Before != nil && !f.Before.IsSkipped() {
				return fail(noPreImage(r.Tool, f.Path, r.lineErr))
			}
		}
	}
	if stageErr != nil {
		rel := r.rels[stageAt]
		switch {
		case !errors.Is(stageErr, fstate.ErrNotFolder):
			return fail(fmt.Errorf("engine: %s %s: %w", r.Tool, rel, stageErr))
		case single:
			return fail(fmt.Errorf("%w: %s %s: %w", errs.ErrBadInput, r.Tool, rel, stageErr))
		default:
			return fail(fmt.Errorf("%w: %s: %s: %w", errs.ErrBadInput, r.Tool, rel, stageErr))
		}
	}
	dirs := fstate.DirSet{}
	var leftovers []string
	replaced := make([]string, len(r.rels))
	for i, rel := range r.rels {
		var err error
		if staged[i] == nil {
			err = fstate.Remove(r.FS, rel, dirs)
		} else {
			replaced[i], err = staged[i].Exchange(r.FS, dirs)
			staged[i] = nil
		}
		if err != nil && single {
			return fail(fmt.Errorf("engine: %s %s: %w", r.Tool, rel, err))
		}
		if err != nil {
			discard(i + 1)
			return nil, nil, r.putBack(ctx, i, replaced, dirs, fmt.Errorf("%s: %w", rel, err))
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
func (r *Run) putBack(ctx context.Context, n int, replaced []string, dirs fstate.DirSet, why error) error {
	recorded := r.record && r.lineErr == nil
	plan := changes.Plan{Files: make([]changes.File, 0, n)}
	for i := n - 1; i >= 0; i-- {
		before := r.FCs[i].Before
		canPut := recorded && !before.IsSkipped() && fstate.Restorable(r.Objs, before)
		plan.Files = append(plan.Files, changes.File{Path: r.rels[i], To: before, SwapBack: replaced[i], Leave: !canPut})
	}
	res := r.Applier.Apply(ctx, r.FS, r.Objs, plan)
	var stuck []string
	for k, f := range plan.Files {
		if !res.Written[k] {
			stuck = append(stuck, f.Path)
		}
	}
	temps := res.Temps // temp files swapped back but not removed
	syncErr := res.Sync
	if err := dirs.Sync(r.FS); syncErr == nil {
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
			r.Host.Abort(r.Rec.ID)
		}
		return withTemps(fmt.Errorf("engine: %s: %w; nothing was changed", r.Tool, why))
	}
	if recorded {
		r.settle()
		return withTemps(fmt.Errorf("engine: %s: %w; the patch is applied in part (%s could not be put back): undo %s puts back every file",
			r.Tool, why, strings.Join(stuck, ", "), r.Rec.ID))
	}
	return withTemps(fmt.Errorf("engine: %s: %w; the patch is applied in part: %s could not be put back", r.Tool, why, strings.Join(stuck, ", ")))
}

// settle brings the undo stack up to the change just made and returns the
// tool's answer: a patch's names every file.
func (r *Run) settle() *snapshot.ToolAnswer {
	h, st, rec := r.Host, r.Stack, r.Rec
	ans := &snapshot.ToolAnswer{Session: r.Session, Files: []string{h.AbsPath(r.rels[0])}, Skipped: []string{}}
	for _, p := range r.Pre.Skipped {
		ans.Skipped = append(ans.Skipped, h.AbsPath(p))
	}
	switch {
	case r.record && r.lineErr == nil:
		// The change is made: the lines that follow from it (the undone
		// branch discarded, the oldest snapshots dropped) ride with the
		// next sync of the journal. Lost in a crash, they cost nothing: the
		// change line itself ends the branch, and the next change drops
		// what the limits still exceed.
		lines, live := st.AfterChange(rec, r.Limits)
		if ids := st.Undone(); len(ids) > 0 {
			lines = append([]any{changes.ListLine{V: 1, Kind: changes.KindDiscard, IDs: ids, At: rec.At}}, lines...)
		}
		if err := h.Write(changes.Lazy, lines...); err != nil {
			// The stack is what the journal folds to: without these
			// lines, the next change ends the branch and drops again.
			h.Noticef("the undo stack's limits could not be recorded: %v", err)
			h.Refold()
		} else {
			st.Committed(rec, live)
		}
		ans.Snapshot = &r.Rec.ID
	case r.record:
		h.Noticef("no snapshot was taken of %s: %v", r.rels[0], r.lineErr)
		ans.Skipped = append(ans.Skipped, h.AbsPath(r.rels[0]))
	}
	if r.patch != nil {
		ans.Files = make([]string, len(r.rels))
		for i, rel := range r.rels {
			ans.Files[i] = h.AbsPath(rel)
		}
		if r.record && r.lineErr != nil {
			ans.Skipped = append([]string{}, ans.Files...)
		}
	}
	return ans
}

// Redoable reports whether the change just made can be made again from
// its line after a crash (changes.Entry.Redoable): then its folders' sync
// waits for the end of the turn.
func (r *Run) Redoable() bool {
	return r.record && r.lineErr == nil && (&changes.Entry{Rec: r.Rec}).Redoable()
}

// noPreImage refuses a file tool that would replace or remove the content
// of rel while no snapshot of it can be recorded: the snapshot store or the
// changes journal cannot be written (a full disk, an I/O error). Such a
// fault passes, so the tool is refused rather than the content lost; a
// file too large to snapshot, which stays so, is changed without one.
func noPreImage(tool, rel string, why error) error {
	return errs.Refusedf("the %s tool may not change %s: no snapshot of it can be taken (%w); nothing was changed", tool, rel, why)
}
