package engine

import (
	"context"
	"fmt"
	"strings"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/fstate"
	"cairn/internal/vfs"
	"cairn/objects"
)

// File revert puts back the files this session's records changed after a
// boundary, newest first, from the records in its changes journal (file
// tools' change lines, recorded calls' record lines; a fork holds its
// parent's). Package changes makes the plan (Timeline, Targets, Check,
// RevertPlan) and its Applier runs it; this file holds the locks, the
// refusals and the journal lines. Calls that ran at the same time are one
// step, their unit's overlap line (engine/internal/overlap).
//
// The boundary is a conversation revert's: a user prompt reverts its own
// turn's changes too, any other item keeps the changes made up to it
// (revertAfter). A compaction item counts from its original, the last item
// of the stretch it replaced. Only files a record names are touched.
//
// Before anything is written every file is checked; one conflict
// (changed, interleaved, unrecorded) refuses the whole revert, the
// conversation half included, with a *RevertConflictError. A revert is
// also refused, naming why, while a call of this session runs or another
// live session of the workspace runs one (the workspace call lock,
// calls_lock.go), while an earlier revert is unfinished, when a record it
// needs was dropped by the store budget, and when the boundary lies before
// the session's records start (or recording is off, then or now).
//
// The revert line (with what each file held) is synced before a file
// changes; each file is replaced atomically with the permission bits its
// record holds; the "reverted" line follows once the files are durable.
// A revert stopped in between is settled by the next owner
// (settleReverts): adopted with a notice when every file was put, else
// left pending and unfinished (unrevert puts back what it changed; new
// work keeps the files as they are).

// revertInline is how many bytes of what a revert keeps go inline in its
// lines (the rest is stored as objects, one fsync each), and revertPart
// the most of them one line holds.
const (
	revertInline = 16 << 20
	revertPart   = 4 << 20
)

// FileRevert says what a file revert did, or, previewed, would do.
type FileRevert struct {
	Applied bool `json:"applied"` // false: a preview
	Create  int  `json:"create"`
	Replace int  `json:"replace"`
	Delete  int  `json:"delete"`
	// UnrecordedCalls counts the calls after the boundary that ran without
	// a record: the revert cannot undo their changes, which stay.
	UnrecordedCalls int            `json:"unrecorded_calls"`
	Files           []RevertedFile `json:"files"`
	// Left names the files the revert could not write (they keep their
	// content, and the revert is unfinished: unrevert or new work ends it).
	Left []FileReason `json:"left,omitempty"`
	// Conflicts refuse the revert (RevertConflictError).
	Conflicts []RevertConflict `json:"conflicts,omitempty"`
	// contents reads, for a preview, what each file holds and would get.
	contents func(ctx context.Context, limit int64) ([]FileChange, error)
}

// Contents is, for a preview, each file of Files as it is now (Before)
// and as the revert would leave it (After), each side read up to limit
// bytes: what cairn diff shows of it. It is nil for a revert that ran.
func (f *FileRevert) Contents(ctx context.Context, limit int64) ([]FileChange, error) {
	if f.contents == nil {
		return nil, nil
	}
	return f.contents(ctx, limit)
}

// RevertedFile is one file of a file revert: what it does to it (create,
// replace, delete; for an unrevert, put back).
type RevertedFile struct {
	Path   string `json:"path"`
	Action string `json:"action"`
}

// RevertConflict is a path a file revert or unrevert refuses over: its
// kind (changed, interleaved, unrecorded), the path, and why.
type RevertConflict struct {
	Kind   string `json:"kind"`
	Path   string `json:"path"`
	Detail string `json:"detail"`
}

// RevertConflictError refuses a file revert or unrevert over conflicts;
// nothing was changed. It wraps ErrRefused.
type RevertConflictError struct {
	Action string // revert | unrevert
	Files  *FileRevert
}

func (e *RevertConflictError) Error() string { return refusedText(e.Why()) }

// Why is what the refusal says after the word.
func (e *RevertConflictError) Why() string {
	by := map[string][]string{}
	var kinds []string
	for _, c := range e.Files.Conflicts {
		if by[c.Kind] == nil {
			kinds = append(kinds, c.Kind)
		}
		by[c.Kind] = append(by[c.Kind], c.Path)
	}
	var parts []string
	for _, k := range kinds {
		parts = append(parts, k+": "+strings.Join(by[k], ", "))
	}
	return fmt.Sprintf("file %s conflicts (%s); nothing was changed", e.Action, strings.Join(parts, "; "))
}

func (e *RevertConflictError) Unwrap() error { return ErrRefused }

// revertFiles runs (apply) or previews the file half of a revert to item
// at, and for mode both then moves the head.
func (s *Session) revertFiles(ctx context.Context, at string, mode RevertMode, apply bool) (*RevertResult, error) {
	s.busy.RLock()
	defer s.busy.RUnlock()
	if s.isClosed() {
		return nil, fmt.Errorf("engine: session %s is closed", s.ID())
	}
	if s.readOnly && apply {
		return nil, refusedf("session %s is open read-only: its files cannot be reverted", s.ID())
	}
	if err := s.refuseRunning("revert"); err != nil {
		return nil, err
	}
	// Seed "Disable change recording": file revert is unavailable while
	// recording is off (an unrevert still works).
	if cfg, err := s.config(); err == nil && (!cfg.Storage.RecordingEnabled || s.opts.NoSnapshots) {
		return nil, refusedf("cannot revert files: change recording is off (--no-snapshots or storage.snapshots.enabled); a conversation revert still works")
	}
	st := &s.snaps
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := s.payCancels(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	sel, err := revertItem(s.st, at)
	var after changes.Boundary
	if err == nil {
		after = revertAfter(s.st, sel)
	}
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	lock, err := s.lockCallsAlone("revert")
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	tl, err := s.ws.timeline(s.st.ID)
	if err != nil {
		return nil, err
	}
	if err := revertRefusal(tl, sel); err != nil {
		return nil, err
	}
	cut := tl.Cut(after)
	// Each check that cannot read what it checks refuses: a revert never
	// goes ahead on "cannot tell".
	drops, err := s.ws.budgetDrops()
	if err != nil {
		return nil, err
	}
	if d := tl.DroppedAfter(cut, drops); len(d) > 0 {
		return nil, refusedf("cannot revert files: %d record(s) it needs were dropped to keep the workspace's store within its size budget (%s)",
			len(d), strings.Join(d[:min(3, len(d))], ", "))
	}
	foreign, err := s.ws.foreignChanges(s.st.ID, tl)
	if err != nil {
		return nil, err
	}
	targets, conflicts := tl.Targets(cut, foreign)
	fsys, done, err := s.ws.files()
	if err != nil {
		return nil, err
	}
	defer done()
	objs := s.snapObjects()
	canPut := func(f *fstate.State) bool { return fstate.Restorable(objs, f) }
	cur, more, err := changes.Check(ctx, fsys, targets, canPut)
	if err != nil {
		return nil, fmt.Errorf("engine: revert: %w; nothing was changed", err)
	}
	fr := &FileRevert{Applied: apply, UnrecordedCalls: len(tl.CallsAfter(cut, after)), Files: []RevertedFile{}}
	plan := changes.RevertPlan(targets, cur)
	for i, f := range plan.Files {
		if f.Leave {
			continue
		}
		act := "replace"
		switch {
		case cur[i] == nil:
			act, fr.Create = "create", fr.Create+1
		case f.To == nil:
			act, fr.Delete = "delete", fr.Delete+1
		default:
			fr.Replace++
		}
		fr.Files = append(fr.Files, RevertedFile{Path: s.ws.absPath(f.Path), Action: act})
	}
	if conflicts = append(conflicts, more...); len(conflicts) > 0 {
		return nil, s.conflictError("revert", fr, conflicts)
	}
	if !apply {
		var rels []string
		var tos []*fstate.State
		for _, f := range plan.Files {
			if !f.Leave {
				rels, tos = append(rels, f.Path), append(tos, f.To)
			}
		}
		fr.contents = func(ctx context.Context, limit int64) ([]FileChange, error) {
			fsys, done, err := s.ws.files()
			if err != nil {
				return nil, err
			}
			defer done()
			out := make([]FileChange, len(rels))
			for i, rel := range rels {
				out[i] = FileChange{Path: s.ws.absPath(rel), Before: diskContent(ctx, fsys, rel, limit)}
				if out[i].After, err = readContent(ctx, objs, nil, rel, tos[i], limit); err != nil {
					return nil, err
				}
			}
			return out, nil
		}
		res := &RevertResult{Session: s.st.ID, Preview: true, Files: fr}
		s.mu.Lock()
		res.From, res.Head = s.st.Head, s.st.Head
		if mode == RevertBoth {
			res.Head, _, _ = s.st.Boundary(sel)
		}
		s.mu.Unlock()
		return res, nil
	}
	if err := s.runRevert(ctx, fsys, objs, sel.ID, targets, plan, fr); err != nil {
		return nil, err
	}
	if mode == RevertFiles || len(fr.Left) > 0 {
		s.mu.Lock()
		head := s.st.Head
		s.mu.Unlock()
		return &RevertResult{Session: s.st.ID, Head: head, From: head, Files: fr}, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	res, err := s.revertHeadLocked(ctx, sel)
	if err != nil {
		return nil, err
	}
	res.Files = fr
	return res, nil
}

// runRevert keeps what each file of plan holds and writes the revert
// line, puts the files back, and writes the "reverted" line.
func (s *Session) runRevert(ctx context.Context, fsys vfs.FS, objs *objects.Store, to string, targets []changes.Target, plan changes.Plan, fr *FileRevert) error {
	budget := revertInline
	sink := keptSink(ctx, objs, &budget)
	var files []changes.RevertFile
	var conflicts []changes.Conflict
	for i, f := range plan.Files {
		if f.Leave {
			continue
		}
		t := targets[i]
		kept, err := fstate.Capture(ctx, fsys, sink, f.Path, fstate.SizeLimit(1, t.Expect))
		if kept.IsSkipped() && (kept.Skipped == fstate.SkipStore || kept.Skipped == fstate.SkipUnreadable) {
			return fmt.Errorf("engine: revert: keep what %s holds, for unrevert: %w; nothing was changed", f.Path, err)
		}
		if !fstate.Same(kept, t.Expect) && !(kept == nil && t.Expect == nil) {
			conflicts = append(conflicts, changes.Conflict{Kind: changes.ConflictChanged, Path: f.Path, Detail: "it changed while the revert was checking"})
			continue
		}
		files = append(files, changes.RevertFile{Path: f.Path, Kept: kept, Put: changes.HashOnly(f.To)})
	}
	if len(conflicts) > 0 {
		return s.conflictError("revert", fr, conflicts)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(files) == 0 {
		return nil // every file holds what it would get: nothing to write, nothing to unrevert
	}
	now := mkTime(s.ws.s.Now())
	id := changes.NewSnapID(now.Time)
	lines := changes.RevertLines(id, now, to, s.newestItem(), files, revertPart)
	out := make([]any, len(lines))
	for i := range lines {
		out[i] = lines[i]
	}
	if err := s.writeChanges(synced, out...); err != nil {
		// Not durable, maybe not all written: a revert whose parts are
		// not all read never started, and none of its files changed.
		return fmt.Errorf("engine: revert: write its line: %w; nothing was changed", err)
	}
	left, syncErr := s.applyRevert(ctx, fsys, objs, plan, fr)
	if syncErr != nil {
		// Not known durable: the next owner settles the revert from the
		// files (settleReverts); until then it is unfinished.
		return fmt.Errorf("engine: revert: sync folders: %w", syncErr)
	}
	if err := s.writeChanges(synced, changes.DoneLine{V: 1, Kind: changes.KindReverted, ID: id, At: mkTime(s.ws.s.Now()), Left: left}); err != nil {
		return fmt.Errorf("engine: revert: the files are reverted, but its end could not be recorded (the next open settles it): %w", err)
	}
	return nil
}

// keptSink keeps what a file holds for unrevert: inline while budget
// lasts (the revert line's one fsync makes it durable), else as an
// object.
func keptSink(ctx context.Context, objs *objects.Store, budget *int) fstate.Sink {
	store := fstate.StoreSink(ctx, objs)
	if store == nil {
		return nil
	}
	return func(b []byte, mode string) (*fstate.State, error) {
		if len(b) <= fstate.MaxInline && len(b) <= *budget {
			*budget -= len(b)
			f, _ := fstate.HashSink(b, mode)
			if len(b) > 0 {
				f.Data = b
			}
			return f, nil
		}
		return store(b, mode)
	}
}

// conflictError is the refusal over conflicts, with fr naming them.
func (s *Session) conflictError(action string, fr *FileRevert, cs []changes.Conflict) error {
	fr.Conflicts = nil
	for _, c := range cs {
		fr.Conflicts = append(fr.Conflicts, RevertConflict{Kind: c.Kind, Path: s.ws.absPath(c.Path), Detail: c.Detail})
	}
	fr.Applied = false
	return &RevertConflictError{Action: action, Files: fr}
}

// applyRevert writes the files of a file revert or unrevert whose line is
// written, noting in fr each file it could not write; left is their paths,
// for its end line, and syncErr why its folders are not known durable.
func (s *Session) applyRevert(ctx context.Context, fsys vfs.FS, objs *objects.Store, plan changes.Plan, fr *FileRevert) (left []string, syncErr error) {
	s.snaps.Settled() // what the fold makes of the line written
	res := s.apply.Apply(ctx, fsys, objs, plan)
	for i, err := range res.Errs {
		if err != nil {
			left = append(left, plan.Files[i].Path)
			fr.Left = append(fr.Left, FileReason{Path: s.ws.absPath(plan.Files[i].Path), Reason: "it could not be written: " + err.Error()})
		}
	}
	return left, res.Sync
}
