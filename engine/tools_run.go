package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"cairn/engine/internal/changes"

	"cairn/engine/internal/fstate"
	"cairn/engine/internal/overlap"
	"cairn/engine/internal/tools"
	"cairn/internal/vfs"
)

// Running a file tool, in the steps drawn at the top of tools.go: runTool
// takes the locks, newToolRun checks the input, and a toolRun carries one
// call through captureBefore (plan, capture, stage), recordLine,
// waitPrevious, swapIn and settleStack.

// toolRun is one call of a file tool in progress.
type toolRun struct {
	s    *Session
	tool string
	rel  string
	call string
	sc   SnapshotsConfig
	fsys vfs.FS

	pre     *preImages
	f       changes.FileChange // the line's file: its pre-image and after state
	job     *tools.Job         // the new content being staged; nil until planned
	record  bool               // a change line is written
	rec     changes.ChangeLine
	lineErr error // why the change line was not written
}

// runTool runs a file tool on path, line first (see the top of tools.go).
func (s *Session) runTool(ctx context.Context, tool, path string, opts []ToolOptions, plan tools.Plan) (*ToolAnswer, error) {
	s.busy.RLock()
	defer s.busy.RUnlock()
	if s.isClosed() {
		return nil, fmt.Errorf("engine: session %s is closed", s.ID())
	}
	t, done, err := s.newToolRun(tool, path, opts)
	if err != nil {
		return nil, err
	}
	defer done()
	leave, err := s.enterCall(ctx, true, "nothing was changed")
	if err != nil {
		return nil, err
	}
	defer leave()

	if err := t.captureBefore(ctx, plan); err != nil {
		return nil, err
	}
	unit := s.unitBeginOrSay(ctx, overlap.Scope{Paths: []string{t.rel}})
	s.files.begin()
	defer s.files.end()
	t.recordLine()
	t.waitPrevious()
	dirs, replaced, err := t.swapIn(ctx)
	if err != nil {
		return nil, err
	}
	ans := t.settleStack()
	if ans.Snapshot != nil {
		s.unitEnded(unit, nil, nil, t.unitMarker([]changes.FileChange{t.f}), t.rec.ID)
	}
	s.files.later(s.ws, dirs, replaced, t.redoable())
	return ans, nil
}

// unitMarker is the marker of the tool's call, with its files' pre-images,
// when it joins a unit (overlap.go).
func (t *toolRun) unitMarker(files []changes.FileChange) *PendingChange {
	fs := make([]changes.FileChange, len(files))
	for i, f := range files {
		fs[i] = changes.FileChange{Path: f.Path, Before: f.Before}
	}
	return &PendingChange{V: 1, Tool: t.tool, Call: t.call, At: t.rec.At, Files: fs}
}

// newToolRun checks a file tool's input and readies its run: the options,
// the path (never inside the state folder), the item it belongs to, the
// session's config and the workspace's files, which done gives back.
func (s *Session) newToolRun(tool, path string, opts []ToolOptions) (*toolRun, func(), error) {
	opt, err := toolOptions(opts)
	if err != nil {
		return nil, nil, err
	}
	if err := tools.FileName(path); err != nil {
		return nil, nil, err
	}
	rel, err := s.ws.relPath(path)
	if err != nil {
		return nil, nil, err
	}
	call, err := s.callFor(opt.Call)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := s.config()
	if err != nil {
		return nil, nil, err
	}
	fsys, done, err := s.ws.files()
	if err != nil {
		return nil, nil, err
	}
	if tools.FencedOff(fsys, rel) {
		done()
		return nil, nil, fmt.Errorf("%w: %s is inside cairn's state folder", ErrBadInput, path)
	}
	if err := s.ws.leadsOut(fsys, rel, path); err != nil {
		done()
		return nil, nil, err
	}
	if err := tools.CheckPath(fsys, cfg.Tools.WriteVCSFolders, rel, path); err != nil {
		done()
		return nil, nil, err
	}
	return &toolRun{s: s, tool: tool, rel: rel, call: call, sc: cfg.Snapshots, fsys: fsys}, done, nil
}

// captureBefore plans the tool's edit, captures the file's pre-image and
// stages the new content: during the capture when the edit does not depend
// on the file's content (write, rm), else after it, from the file as
// captured or as the tool reads it when the capture did not. It refuses the
// tool when its input is bad or a pre-image it needs was not captured; on
// error nothing is left staged.
func (t *toolRun) captureBefore(ctx context.Context, plan tools.Plan) error {
	s := t.s
	var ed *tools.Edit
	if !plan.NeedsContent() {
		var err error
		if ed, err = plan.Plan(t.fsys, t.rel, "", nil); err != nil {
			return err
		}
	}
	// The session is owned (its hint made) before the first temp file is:
	// the hint names the folder first (temps.go).
	t.pre = s.newPreImages(ctx, t.sc, true)
	s.noteStaging(t.rel)
	if ed != nil {
		t.job = tools.Start(t.fsys, t.rel, ed)
	}
	bail := func(err error) error {
		if t.job != nil {
			t.job.Discard(t.fsys)
		}
		return err
	}
	if plan.NeedsContent() {
		t.pre.Check = func(data []byte, mode string) (err error) {
			ed, err = plan.Plan(t.fsys, t.rel, mode, data)
			return err
		}
	}
	t.f = t.pre.Capture(ctx, t.fsys, t.rel)
	if err := ctx.Err(); err != nil {
		return bail(err)
	}
	if t.pre.CheckErr != nil {
		return t.pre.CheckErr // nothing staged yet
	}
	if ed == nil { // the capture did not read the file: the tool reads it
		var err error
		if ed, err = plan.Plan(t.fsys, t.rel, "", nil); err != nil {
			return err
		}
	}
	// Bad input is said first: it would change nothing. Then a required
	// pre-image that was not captured refuses the tool.
	if err := t.pre.refuse(ctx, t.tool); err != nil {
		return bail(err)
	}
	if t.f.Before != nil && t.f.Before.Skipped == fstate.SkipStore {
		return bail(noPreImage(t.tool, t.rel, t.pre.PutErr))
	}
	if t.job == nil {
		t.job = tools.Start(t.fsys, t.rel, ed)
	}
	t.f.After = t.job.After
	return nil
}

// recordLine appends and syncs the change line while the new content is
// staged. A line that fails is cancelled (an abort line), and the edit goes
// on without a snapshot unless swapIn refuses it.
func (t *toolRun) recordLine() {
	s, pre := t.s, t.pre
	t.record = pre.On && pre.Objs != nil
	if pre.On && !t.record {
		s.notice("no snapshot was taken: the snapshot store cannot be written")
		if t.f.Before == nil { // made, not replaced: say undo cannot remove it
			pre.Skipped = append(pre.Skipped, t.rel)
		}
	}
	if !t.record {
		return
	}
	t.rec = s.snaps.NewRecord(mkTime(s.ws.s.Now()), t.tool, t.call, s.newestItem(), []changes.FileChange{t.f})
	t.job.Sync()
	if t.lineErr = s.writeChanges(ahead, t.rec); t.lineErr != nil {
		// Not durable, maybe not written: cancelled.
		s.abortChange(t.rec.ID)
	}
}

// waitPrevious waits for the background folder syncs of the file changes
// before this one, which its line did not wait for (writeChanges, ahead):
// its file changes only once theirs are durable, so a crash can lose the
// change before it only together with it. The folders of changes that can
// be made again from their lines (redoable) are left to the end of the
// turn (fileSyncs). A sync that failed cancels the line, as it would have
// refused the line had it been known (writeChanges, synced), and the end of the
// turn reports it. A tool without a line waits for every change before it.
func (t *toolRun) waitPrevious() {
	s := t.s
	if !t.record || t.lineErr != nil {
		s.files.wait()
		return
	}
	if err := s.files.failedStarted(); err != nil {
		t.lineErr = err
		s.abortChange(t.rec.ID)
	}
}

// swapIn waits for the staged content to be durable, then swaps it with
// the file (or removes the file). It refuses the tool, cancelling its line,
// when the line failed and the file's pre-image is required or would be
// lost; the staged file is then discarded. It returns the folders to sync
// and the replaced file to remove, in the background.
func (t *toolRun) swapIn(ctx context.Context) (dirs fstate.DirSet, replaced string, err error) {
	s, rel := t.s, t.rel
	stg, stageErr := t.job.Wait()
	fail := func(err error) (fstate.DirSet, string, error) {
		if stg != nil {
			stg.Discard(t.fsys)
		}
		if t.record && t.lineErr == nil {
			s.abortChange(t.rec.ID)
		}
		return nil, "", err
	}
	if t.lineErr != nil && s.ws.required(t.sc, rel) {
		t.pre.Denied = append(t.pre.Denied, requiredFile{Path: rel, Reason: fstate.SkipStore + ": " + t.lineErr.Error()})
		return fail(t.pre.refuse(ctx, t.tool))
	}
	if t.lineErr != nil && t.f.Before != nil && !t.f.Before.IsSkipped() {
		return fail(noPreImage(t.tool, rel, t.lineErr))
	}
	if errors.Is(stageErr, fstate.ErrNotFolder) {
		return fail(fmt.Errorf("%w: %s %s: %w", ErrBadInput, t.tool, rel, stageErr))
	}
	if stageErr != nil {
		return fail(fmt.Errorf("engine: %s %s: %w", t.tool, rel, stageErr))
	}
	dirs = fstate.DirSet{}
	if stg == nil {
		err = fstate.Remove(t.fsys, rel, dirs)
	} else {
		replaced, err = stg.Exchange(t.fsys, dirs)
		stg = nil
	}
	if err != nil {
		return fail(fmt.Errorf("engine: %s %s: %w", t.tool, rel, err))
	}
	return dirs, replaced, nil
}

// redoable reports whether the change just made can be made again from
// its line after a crash (changes.Entry.Redoable): then its folder's sync
// waits for the end of the turn.
func (t *toolRun) redoable() bool {
	return t.record && t.lineErr == nil && (&changes.Entry{Rec: t.rec}).Redoable()
}

// settleStack brings the undo stack up to the change just made and returns
// the tool's answer.
func (t *toolRun) settleStack() *ToolAnswer {
	s, st, rec := t.s, &t.s.snaps, t.rec
	ans := &ToolAnswer{Session: s.ID(), Files: []string{s.ws.absPath(t.rel)}, Skipped: []string{}}
	for _, p := range t.pre.Skipped {
		ans.Skipped = append(ans.Skipped, s.ws.absPath(p))
	}
	switch {
	case t.record && t.lineErr == nil:
		// The change is made: the lines that follow from it (the undone
		// branch discarded, the oldest snapshots dropped) ride with the
		// next sync of the journal. Lost in a crash, they cost nothing: the
		// change line itself ends the branch, and the next change drops
		// what the limits still exceed.
		lines, live := st.AfterChange(rec, t.sc.Limits())
		if ids := st.Undone(); len(ids) > 0 {
			lines = append([]any{changes.ListLine{V: 1, Kind: changes.KindDiscard, IDs: ids, At: rec.At}}, lines...)
		}
		if err := s.writeChanges(lazy, lines...); err != nil {
			// The stack is what the journal folds to: without these
			// lines, the next change ends the branch and drops again.
			s.noticef("the undo stack's limits could not be recorded: %v", err)
			st.refold(s)
		} else {
			st.Committed(rec, live)
		}
		ans.Snapshot = &rec.ID
	case t.record:
		s.noticef("no snapshot was taken of %s: %v", t.rel, t.lineErr)
		ans.Skipped = append(ans.Skipped, s.ws.absPath(t.rel))
	}
	return ans
}

// noPreImage refuses a file tool that would replace or remove the content
// of rel while no snapshot of it can be recorded: the snapshot store or the
// changes journal cannot be written (a full disk, an I/O error). Such a
// fault passes, so the tool is refused rather than the content lost; a
// file too large to snapshot, which stays so, is changed without one.
func noPreImage(tool, rel string, why error) error {
	return refusedf("the %s tool may not change %s: no snapshot of it can be taken (%w); nothing was changed", tool, rel, why)
}

// abortChange cancels change id, whose line may be written but whose file
// was not changed, and refolds the stack from the journal: the truth,
// whether the line, its abort, both or neither reached it.
func (s *Session) abortChange(id string) {
	st := &s.snaps
	err := s.writeChanges(synced, changes.EventLine{V: 1, Kind: changes.KindAbort, ID: id, At: mkTime(s.ws.s.Now())})
	st.refold(s)
	if err == nil {
		return
	}
	// The abort is owed: it goes before the next line, and meanwhile the
	// stack is what that line will make of it (and what a reader, or the
	// next owner, settles it to).
	s.noticef("the cancelled change %s could not be recorded yet: %v", id, err)
	st.wr.Owe(id)
	st.dropOwed([]string{id})
}

// refold rebuilds the stack from the journal, after a write to it failed.
func (st *snapStack) refold(s *Session) {
	var fresh snapStack
	if err := foldChanges(s.ws.s.fsys, changesName(s.ws.dir, s.st.ID), &fresh); err != nil {
		s.noticef("the undo stack could not be read back: %v", err)
		return
	}
	st.Stack, st.unread = fresh.Stack, fresh.unread
	// Aborts still owed are in the stack as those lines will make it.
	st.dropOwed(st.wr.Owed())
}

// dropOwed takes out of the stack the pending changes owed aborts
// cancel, newest first, as Stack.Fold does with the abort lines, and puts
// back the undone branch each ended. Only the two newest changes can be
// pending (changes.Stack.Prev).
func (st *snapStack) dropOwed(owed []string) {
	for p := st.Pending(); p != nil && slices.Contains(owed, p.Rec.ID); p = st.Pending() {
		st.PopPending()
	}
}
