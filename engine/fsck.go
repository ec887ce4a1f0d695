package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"cairn/engine/internal/bgwork"
	"cairn/engine/internal/fsck"
	"cairn/engine/internal/wsinfo"
	"cairn/internal/vfs"
)

// FsckReport is what `cairn storage fsck` found.
type FsckReport = fsck.Report

// FsckProblem is one thing fsck found wrong, and where.
type FsckProblem = fsck.Problem

// Fsck verifies every object, journal and record of the store and says
// what is wrong and where, changing nothing; a torn journal tail is a note.
func (s *Store) Fsck(ctx context.Context) (*FsckReport, error) { return s.FsckProgress(ctx, nil) }

// FsckProgress is Fsck that tells progress, when not nil, how many
// workspace folders it has checked of how many.
func (s *Store) FsckProgress(ctx context.Context, progress func(done, total int)) (*FsckReport, error) {
	r := &FsckReport{Problems: []FsckProblem{}, Notes: []FsckProblem{}}
	bad := func(p, format string, a ...any) {
		r.Problems = append(r.Problems, FsckProblem{Path: p, Problem: fmt.Sprintf(format, userWords(a)...)})
	}
	note := func(p, format string, a ...any) {
		r.Notes = append(r.Notes, FsckProblem{Path: p, Problem: fmt.Sprintf(format, userWords(a)...)})
	}
	c := &fsck.Checker{FS: s.fsys, Env: fsckEnv{s}, Bad: bad, Note: note, R: r,
		Transcript: transcriptMark, ExecKind: markerExec, Inbox: inboxFile, WorkLedger: bgwork.LedgerFile, TrashDays: TrashDays}
	if err := checkFormat(readOnly{s.fsys}, s.home); err != nil {
		bad("FORMAT", "%v", err)
	}
	if _, err := s.Config(); err != nil {
		bad(configName, "%v", err)
	}
	for _, j := range []string{historyName, usageName} {
		if _, err := s.fsys.Stat(j); err == nil {
			c.Journal(j, nil)
		}
	}
	if _, err := s.fsys.Stat(usageName); err == nil {
		s.fsckUsage(ctx, bad) // usage.go
	}
	c.Moves(s.recoveryOf)
	s.fsckEphemeral(note)
	s.fsckPlans(bad, note) // retention_plans.go
	s.fsckTrash(bad, note)
	if err := c.Workspaces(ctx, progress); err != nil {
		return nil, err
	}
	return r, nil
}

// reporter reports a problem or a note (package fsck).
type reporter = fsck.Reporter

// readOnly lets fsck reuse checkFormat without ever writing: a missing
// FORMAT file is reported, not created.
type readOnly struct{ vfs.FS }

var errReadOnly = errors.New("engine: fsck writes nothing")

func (readOnly) CreateTemp(string, string) (vfs.File, error) { return nil, errReadOnly }

// recoveryOf is why this store's open could not finish or undo what a
// crash left at name, or nil.
func (s *Store) recoveryOf(name string) error {
	for _, r := range s.recoveryErrs {
		if r.Path == name {
			return r.Err
		}
	}
	return nil
}

// ownedNow reports whether a process holds session id's lock, without
// changing anything (fsck only reads).
func (s *Store) ownedNow(dir, id string) bool { return fsck.Owned(s.fsys, lockName(dir, id)) }

// fsckEnv gives package fsck what only the engine reads: records, drops,
// locks and the folds of the items journal.
type fsckEnv struct{ s *Store }

func (e fsckEnv) WorkspaceInfo(dir string, bad fsck.Reporter) { wsinfo.Check(e.s.fsys, dir, bad) }
func (e fsckEnv) Owned(dir, id string) bool                   { return e.s.ownedNow(dir, id) }
func (e fsckEnv) Pending() map[string]bool                    { return e.s.pendingPlans() }
func (e fsckEnv) Future() time.Time                           { return e.s.future() }

func (e fsckEnv) Dropped(dir string) map[string]map[string]bool {
	drops, _ := (&Workspace{s: e.s, dir: dir}).readDrops()
	return drops
}

func (e fsckEnv) Record(dir, id string) (fsck.Record, error) {
	rec, err := readRecord(e.s.fsys, dir, id)
	if err != nil {
		return fsck.Record{}, err
	}
	return fsck.Record{Title: rec.Title, Items: rec.Counts.Items, Head: rec.Head, ItemsBytes: rec.Journals["items"], UpdatedAt: rec.UpdatedAt.Time}, nil
}

func (e fsckEnv) Items(id string) fsck.Tree { return fsck.ItemsTree(id) }
func (e fsckEnv) Transcript() fsck.Tree     { return fsck.TranscriptTree() }
