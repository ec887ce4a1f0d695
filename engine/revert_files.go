package engine

import (
	"context"
	"fmt"
	"strings"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/fstate"
	"cairn/engine/internal/revert"
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

// What a file revert or unrevert answers (package revert says each field).
type (
	// FileRevert says what a file revert did, or, previewed, would do.
	FileRevert = revert.FileRevert
	// RevertedFile is one file of a file revert and what it does to it.
	RevertedFile = revert.RevertedFile
	// RevertConflict is a path a file revert or unrevert refuses over.
	RevertConflict = revert.RevertConflict
	// RevertConflictError refuses a file revert or unrevert over
	// conflicts; nothing was changed. It wraps ErrRefused.
	RevertConflictError = revert.RevertConflictError
)

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
	tl, err := s.ws.timeline(s.st.id)
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
	foreign, err := s.ws.foreignChanges(s.st.id, tl)
	if err != nil {
		return nil, err
	}
	targets, conflicts := tl.Targets(cut, foreign)
	fsys, done, err := s.ws.files()
	if err != nil {
		return nil, err
	}
	defer done()
	run := s.revertRun(fsys)
	objs := run.Objs
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
		return nil, run.ConflictError("revert", fr, conflicts)
	}
	if !apply {
		var rels []string
		var tos []*fstate.State
		for _, f := range plan.Files {
			if !f.Leave {
				rels, tos = append(rels, f.Path), append(tos, f.To)
			}
		}
		fr.SetContents(func(ctx context.Context, limit int64) ([]FileChange, error) {
			fsys, done, err := s.ws.files()
			if err != nil {
				return nil, err
			}
			defer done()
			out := make([]FileChange, len(rels))
			for i, rel := range rels {
				out[i] = FileChange{Path: s.ws.absPath(rel), Before: revert.DiskContent(ctx, fsys, rel, limit)}
				if out[i].After, err = revert.ReadContent(ctx, objs, nil, rel, tos[i], limit); err != nil {
					return nil, err
				}
			}
			return out, nil
		})
		res := &RevertResult{Session: s.st.id, Preview: true, Files: fr}
		s.mu.Lock()
		res.From, res.Head = s.st.head, s.st.head
		if mode == RevertBoth {
			res.Head, _, _ = boundary(s.st, sel)
		}
		s.mu.Unlock()
		return res, nil
	}
	if err := run.Revert(ctx, sel.ID, targets, plan, fr); err != nil {
		return nil, err
	}
	if mode == RevertFiles || len(fr.Left) > 0 {
		s.mu.Lock()
		head := s.st.head
		s.mu.Unlock()
		return &RevertResult{Session: s.st.id, Head: head, From: head, Files: fr}, nil
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
