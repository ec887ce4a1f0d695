package engine

import (
	"context"
	"fmt"
	"path"
	"strings"
	"time"

	"cairn/engine/internal/layout"
	"cairn/engine/internal/trash"
	"cairn/internal/vfs"
)

// Forget moves a session into the trash, a folder of the state folder
// (package trash draws it and moves the files), under a plan that makes it
// all or nothing (retention_plans.go); Prune purges entries forgotten at
// least TrashDays days ago. The usage ledger is never touched. A session
// of the same id made again after its forget (an agent's hooks go on with
// it, an import brings it back) is a live session that nothing touches
// because of the entry: a restore is refused and a forget skips it until
// prune purges the entry.

// TrashDays is how many days a forgotten session stays restorable, and
// how old an orphan or an unreferenced object must be for prune.
const TrashDays = 7

const (
	sessionsDir = layout.Sessions
	trashGrace  = TrashDays * 24 * time.Hour
)

// Trashed is a forgotten session the trash still holds.
type Trashed struct {
	Session   string
	Directory string
	At        time.Time // when it was forgotten
}

// SettleTrash finishes what an older build's forget or restore left cut
// short. Forget, restore, prune and the sweep run it first.
func (s *Store) SettleTrash(ctx context.Context) error { return s.settleTrash(ctx) }

// settleTrash finishes what an older build's forget or restore left cut
// short (trash.SettleAll).
func (s *Store) settleTrash(ctx context.Context) error { return trash.SettleAll(ctx, s.fsys) }

// TrashList lists the forgotten sessions the trash holds, newest first.
func (s *Store) TrashList(ctx context.Context) ([]Trashed, error) {
	list, err := trash.List(s.fsys)
	if err != nil {
		return nil, err
	}
	out := make([]Trashed, 0, len(list))
	for _, in := range list {
		out = append(out, Trashed{Session: in.Session, Directory: in.Path, At: in.At.Time})
	}
	return out, nil
}

// Restore brings a forgotten session back from the trash into its
// workspace. ref is its id or a unique prefix of it.
func (s *Store) Restore(ctx context.Context, ref string) (Trashed, error) {
	if err := s.settleTrash(ctx); err != nil {
		return Trashed{}, err
	}
	list, err := s.TrashList(ctx)
	if err != nil {
		return Trashed{}, err
	}
	var match []Trashed
	for _, t := range list {
		if t.Session == ref || (ref != "" && strings.HasPrefix(t.Session, ref)) {
			match = append(match, t)
		}
	}
	switch {
	case ref == "":
		return Trashed{}, fmt.Errorf("%w: empty session reference", ErrBadInput)
	case len(match) == 0:
		return Trashed{}, notFoundf("no forgotten session %q in the trash", ref)
	case len(match) > 1:
		return Trashed{}, fmt.Errorf("%w: %q matches %d forgotten sessions", ErrAmbiguous, ref, len(match))
	}
	id := match[0].Session
	in, err := trash.ReadNote(s.fsys, id)
	if err != nil {
		return Trashed{}, err
	}
	w := &Workspace{s: s, path: in.Path, key: in.Workspace, dir: workspaceDir(in.Workspace), made: true}
	if _, err := s.fsys.Lstat(itemsName(w.dir, id)); err == nil {
		return Trashed{}, refusedf("a session %s is in its workspace again, made after the forget (by an agent's hooks or an import); the trash keeps the forgotten one until it is purged", id)
	}
	if err := vfs.MkdirAllDurable(s.fsys, path.Join(w.dir, sessionsDir), vfs.DirPerm); err != nil {
		return Trashed{}, err
	}
	l, err := w.acquire(id)
	if err != nil {
		return Trashed{}, err
	}
	defer w.release(id, l)
	if _, err := s.fsys.Lstat(itemsName(w.dir, id)); err == nil {
		// Made again while this process waited for the lock.
		return Trashed{}, refusedf("a session %s is in its workspace again, made after the forget (by an agent's hooks or an import); the trash keeps the forgotten one until it is purged", id)
	}
	if err := w.restoreSession(ctx, id); err != nil {
		return Trashed{}, fmt.Errorf("engine: restore %s: %w", id, err)
	}
	return match[0], nil
}

// fsckTrash names damaged trash entries and sessions split between the
// workspace and the trash (trash.Fsck).
func (s *Store) fsckTrash(bad, note reporter) { trash.Fsck(s.fsys, bad, note) }
