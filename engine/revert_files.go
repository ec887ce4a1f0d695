package engine

import (
	"context"
	"fmt"
	"time"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/revert"
)

// File revert puts back the files this session's records changed after a
// boundary; this file holds the locks, the refusals' order and the head.
// Package revert's doc draws the whole and does the work.

// What a file revert or unrevert answers (package revert says each field).
type (
	// FileRevert says what a file revert did, or, previewed, would do.
	FileRevert = revert.FileRevert
	// RevertedFile is one file of a file revert and what it does to it.
	RevertedFile = revert.RevertedFile
	// revertConflict is a path a file revert or unrevert refuses over.
	revertConflict = revert.RevertConflict
	// RevertConflictError refuses a file revert or unrevert over
	// conflicts; nothing was changed. It wraps ErrRefused.
	RevertConflictError = revert.RevertConflictError
)

// revertFiles runs (apply) or previews the file half of a revert to item
// at, and for mode both then moves the head.
func (s *Session) revertFiles(ctx context.Context, at string, mode RevertMode, apply bool) (*RevertResult, error) {
	return s.revertFilesTo(ctx, func() (*Item, revertPoint, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		sel, err := revertItem(s.st, at)
		if err != nil {
			return nil, revertPoint{}, err
		}
		return sel, revertPoint{id: sel.ID, at: sel.At.Time, after: revertAfter(s.st, sel)}, nil
	}, mode, apply)
}

// revertPoint is a file revert's boundary: the item selected, its time,
// and which records lie after it.
type revertPoint struct {
	id    string
	at    time.Time
	after changes.Boundary
}

// revertFilesTo runs (apply) or previews the file half of a revert to the
// boundary point gives, read under the session's record lock; its item,
// nil when the conversation is elsewhere, is where mode both moves the
// head.
func (s *Session) revertFilesTo(ctx context.Context, point func() (*Item, revertPoint, error), mode RevertMode, apply bool) (*RevertResult, error) {
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
	sel, pt, err := point()
	if err != nil {
		return nil, err
	}
	if sel == nil && mode != RevertFiles {
		return nil, fmt.Errorf("%w: a revert of a conversation kept elsewhere puts back files only (mode files)", ErrBadInput)
	}
	after := pt.after
	lock, err := s.lockCallsAlone("revert")
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	sl, err := revert.Select(s.ws.s.fsys, s.ws.revertSessions(), dropsName(s.ws.dir), s.st.ID, pt.id, pt.at, after)
	if err != nil {
		return nil, err
	}
	fsys, done, err := s.ws.files()
	if err != nil {
		return nil, err
	}
	defer done()
	run := s.revertRun(fsys)
	fr, plan, err := run.Plan(ctx, sl.Targets, sl.Conflicts, sl.Unrecorded, apply)
	if err != nil {
		return nil, err
	}
	if !apply {
		run.Preview(fr, plan, s.ws.files)
		res := &RevertResult{Session: s.st.ID, Preview: true, Files: fr}
		s.mu.Lock()
		res.From, res.Head = s.st.Head, s.st.Head
		if mode == RevertBoth {
			res.Head, _, _ = s.st.Boundary(sel)
		}
		s.mu.Unlock()
		return res, nil
	}
	if err := run.Revert(ctx, pt.id, sl.Targets, plan, fr); err != nil {
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
