package engine

import (
	"context"
	"errors"
	"fmt"
	"path"

	"cairn/engine/internal/convlog"
	"cairn/engine/internal/durable"
	"cairn/internal/vfs"
	"cairn/journal"
)

// Forking copies an ancestor path into a new session, sharing the rest
// (convlog.Fork says what a child gets); it needs no ownership of the
// parent, so an active session can be forked.

// ForkResult says what a fork made (convlog.ForkResult).
type ForkResult = convlog.ForkResult

// Fork forks this session at item at ("" = the head).
func (s *Session) Fork(ctx context.Context, at string) (*ForkResult, error) {
	if err := s.Commit(ctx); err != nil {
		return nil, err
	}
	if s.readOnly {
		return nil, refusedf("session %s is open read-only: a fork cannot be written", s.ID())
	}
	if !s.Recorded() {
		return nil, refusedf("session %s has nothing recorded to fork", s.ID())
	}
	return s.ws.Fork(ctx, s.ID(), at)
}

// Fork forks session parent at item at ("" = its head) without taking
// ownership of it (convlog.Fork).
func (w *Workspace) Fork(ctx context.Context, parent, at string) (*ForkResult, error) {
	if !validSessionID(parent) {
		return nil, fmt.Errorf("%w: %q is not a session id", ErrBadInput, parent)
	}
	env := convlog.ForkEnv{FS: w.s.fsys, Dir: w.dir, Path: w.path, Build: Version, Branch: func() string { return gitBranch(w.path) },
		Now: func() Time { return mkTime(w.s.Now()) }, Child: newSessionID(), Supplied: newItemID(),
		Journal: journal.Options{Sync: journal.SyncManual, Now: w.s.now}}
	return convlog.Fork(ctx, forkHost{w}, env, parent, at)
}

// forkHost gives convlog.Fork the workspace's sessions and files.
type forkHost struct{ *Workspace }

func (h forkHost) Fold(ctx context.Context, id string) (*state, error) {
	st, err := h.fold(ctx, id, foldOptions{})
	if err == nil {
		err = h.readable(id, st)
	}
	return st, err
}
func (h forkHost) Draft(ctx context.Context, id string, sel *Item) (string, *Unavailable, error) {
	return h.draftOf(ctx, id, sel)
}
func (h forkHost) Ensure() error                       { return h.ensure() }
func (h forkHost) Acquire(id string) (vfs.Lock, error) { return h.acquire(id) }
func (h forkHost) Release(id string, l vfs.Lock)       { h.release(id, l) }
func (h forkHost) Drop(id string)                      { h.dropUnmade(id) }
func (h forkHost) Listing(ctx context.Context) ([]convlog.Listed, error) {
	listing, _, err := h.List(ctx)
	listed := make([]convlog.Listed, len(listing))
	for i, e := range listing {
		listed[i] = convlog.Listed{ForkOf: e.ForkOf, Title: e.Title}
	}
	return listed, err
}

// Copy copies the sub-agent transcripts the kept path's task calls own
// (engine/internal/tasks/copy.go), then the tool outputs the path and
// those transcripts refer to, their ids kept. One the parent no longer
// holds (a trim dropped its outputs) is not there to copy: the child
// refers to it as the parent does, and the fork goes on.
func (h forkHost) Copy(ctx context.Context, parent, child string, keep []*Item) ([]string, error) {
	tasks, taskOuts, err := h.copyTasks(ctx, parent, child, keep)
	if err != nil {
		return nil, fmt.Errorf("engine: fork %s: copy its sub-agent transcripts: %w", parent, err)
	}
	var outs []string
	for _, it := range keep {
		outs = append(outs, it.Outputs...)
	}
	outs = append(outs, taskOuts...)
	if len(outs) > 0 {
		if err := h.copyOutputs(ctx, parent, child, outs); err != nil && !errors.Is(err, ErrNotFound) {
			return nil, fmt.Errorf("engine: fork %s: copy its tool outputs: %w", parent, err)
		}
	}
	return tasks, nil
}

// Made writes the child's record. It is derived: when it cannot be
// written now, the next listing rebuilds it from the journal.
func (h forkHost) Made(ctx context.Context, child string, size int64) {
	if cst, err := h.fold(ctx, child, foldOptions{}); err == nil {
		writeRecord(h.s.fsys, h.dir, recordOf(cst, map[string]int64{"items": size}))
	}
}

// dropUnmade removes what a session creation that failed before its items
// journal got its name had written: its shared change records, its tool
// outputs, its lock file (released first), and the journal itself if it was
// renamed into place after all.
// No one else knows the session's id, so none of it is in use.
func (w *Workspace) dropUnmade(id string) {
	fsys := w.s.fsys
	fsys.Remove(itemsName(w.dir, id))
	fsys.Remove(changesName(w.dir, id))
	fsys.Remove(lockName(w.dir, id))
	fsys.Remove(ownersName(w.dir, id))
	durable.RemoveFolder(context.Background(), fsys, taskDir(w.dir, id))
	dir := outputDir(w.dir, id)
	if ents, err := fsys.ReadDir(dir); err == nil {
		for _, e := range ents {
			fsys.Remove(path.Join(dir, e.Name()))
		}
		fsys.Remove(dir)
	}
}
