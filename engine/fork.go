package engine

import (
	"context"
	"errors"
	"fmt"
	"path"

	"cairn/engine/internal/convlog"
	"cairn/engine/internal/durable"
	"cairn/journal"
)

// Forking copies the selected ancestor path into a new session and shares
// everything else: payload objects stay in the workspace's store and are
// named, not copied; the parent's change records are shared so the child can
// revert files too. Where the fork starts follows the seed's table
// (engine/internal/convlog/fork.go). The child gets a new id, the title "<title> (fork
// #N)" (N counted per parent, marked as the user's own), copies of the
// plan, model and settings, and the tool outputs its path and the
// sub-agent histories it keeps refer to (ids kept; one the parent no
// longer holds is skipped). Usage, pending revert state and permission
// rules start clean. Forking needs no ownership of the parent, so an
// active session can be forked.

// ForkResult says what a fork made: the child session, where it came
// from, its title, the draft it was handed and the tasks it holds
// (convlog.ForkResult).
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
// ownership of it.
func (w *Workspace) Fork(ctx context.Context, parent, at string) (*ForkResult, error) {
	if !validSessionID(parent) {
		return nil, fmt.Errorf("%w: %q is not a session id", ErrBadInput, parent)
	}
	st, err := w.fold(ctx, parent, foldOptions{})
	if err != nil {
		return nil, err
	}
	if err := w.readable(parent, st); err != nil {
		return nil, err
	}
	if at == "" {
		if st.Head == "" {
			return nil, refusedf("nothing to fork: session %s has no head item (name an item to fork at)", parent)
		}
		at = st.Head
	}
	sel := st.Items[at]
	if sel == nil {
		return nil, noItem(at, parent)
	}
	keep, draft, supply := st.ForkPath(sel)
	var draftGone *Unavailable
	var draftPayload *Payload // the prompt's object, for a text over 16 KiB
	if sel.Type == User {
		if draft, draftGone, err = w.draftOf(ctx, parent, sel); err != nil {
			return nil, err
		}
		if sel.Text == "" {
			ls, err := convlog.PathLines(w.s.fsys, itemsName(w.dir, parent), []*Item{sel})
			if err != nil {
				return nil, err
			}
			if len(ls) == 1 {
				draftPayload = ls[0].Payload
			}
		}
	}

	// Forks are numbered one at a time, across processes: the lock is held
	// until the child is in place, where the next fork's count sees it.
	if err := w.ensure(); err != nil {
		return nil, err
	}
	fl, err := convlog.LockForks(ctx, w.s.fsys, w.dir)
	if err != nil {
		return nil, err
	}
	defer fl.Release()
	listing, _, err := w.List(ctx)
	if err != nil {
		return nil, err
	}
	listed := make([]convlog.Listed, len(listing))
	for i, e := range listing {
		listed[i] = convlog.Listed{ForkOf: e.ForkOf, Title: e.Title}
	}
	n := convlog.NextForkN(listed, parent, st.Title)
	title := convlog.ForkTitle(st.Title, n)
	child := newSessionID()
	ref := ForkRef{Session: parent, Item: at, N: n}
	now := mkTime(w.s.Now())

	// Lines the parent's journal holds for the path are copied with their
	// payload references: no payload is read or stored again.
	lines, err := convlog.PathLines(w.s.fsys, itemsName(w.dir, parent), keep)
	if err != nil {
		return nil, err
	}
	var draftAtts []Attachment
	if sel.Type == User {
		draftAtts = convlog.OnDisk(sel.Attachments)
	}
	out := convlog.ForkLines(st, lines, keep, supply, convlog.Child{Session: child, Path: w.path, Build: Version,
		Branch: gitBranch(w.path), Ref: ref, At: now, Title: title, Supplied: newItemID(),
		Draft: draft, DraftPayload: draftPayload, DraftAttachments: draftAtts})

	// The child exists from one rename: that of its items journal, written
	// whole after everything else it holds. A failure before it removes
	// what was written, so a failed fork leaves no session behind. Its lock
	// is held meanwhile, so that no one takes its temp files for leftovers.
	l, err := w.acquire(child)
	if err != nil {
		return nil, err
	}
	made := false
	defer func() {
		w.release(child, l)
		if !made {
			w.dropUnmade(child)
		}
	}()
	if err := convlog.ShareChanges(w.s.fsys, changesName(w.dir, parent), changesName(w.dir, child), mkTime(w.s.Now())); err != nil {
		return nil, fmt.Errorf("engine: fork %s: share its change records: %w", parent, err)
	}
	// The sub-agent transcripts the kept path's task calls own are copied
	// (engine/internal/tasks/copy.go); their payloads and attachments are shared objects.
	tasks, taskOuts, err := w.copyTasks(ctx, parent, child, keep)
	if err != nil {
		return nil, fmt.Errorf("engine: fork %s: copy its sub-agent transcripts: %w", parent, err)
	}
	// The tool outputs the kept path and those transcripts refer to are
	// copied, their ids kept. One the parent no longer holds (a trim
	// dropped its outputs) is not there to copy: the child refers to it
	// as the parent does, and the fork goes on.
	var outs []string
	for _, it := range keep {
		outs = append(outs, it.Outputs...)
	}
	outs = append(outs, taskOuts...)
	if len(outs) > 0 {
		if err := w.copyOutputs(ctx, parent, child, outs); err != nil && !errors.Is(err, ErrNotFound) {
			return nil, fmt.Errorf("engine: fork %s: copy its tool outputs: %w", parent, err)
		}
	}
	wr, err := journal.Create(w.s.fsys, itemsName(w.dir, child), out, journal.Options{Sync: journal.SyncManual, Now: w.s.now})
	if err != nil {
		return nil, fmt.Errorf("engine: fork %s: %w", parent, err)
	}
	made = true
	size := wr.Size()
	wr.Close()
	// The record is derived: when it cannot be written now, the next
	// listing rebuilds it from the journal. The fork is made either way.
	if cst, err := w.fold(ctx, child, foldOptions{}); err == nil {
		writeRecord(w.s.fsys, w.dir, recordOf(cst, map[string]int64{"items": size}))
	}
	return &ForkResult{Session: child, ForkOf: ref, Title: title, Draft: draft, DraftUnavailable: draftGone,
		DraftAttachments: draftAtts, Tasks: tasks}, nil
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
