package engine

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"cairn/engine/internal/durable"
	"cairn/engine/internal/layout"
	"cairn/engine/internal/trash"
	"cairn/internal/vfs"
)

// Forget moves a session into the trash, a folder of the state folder
// (package trash draws it and moves the files), under a plan that makes it
// all or nothing (retention_plans.go); Prune purges entries forgotten at
// least TrashDays days ago. The usage ledger is never touched.
//
// A session of the same id may be made again after its forget (an agent's
// hooks go on with it, an import brings it back): it is a live session,
// and no forget, restore, prune or sweep ever touches it because of the
// entry. Both stay: a restore is refused and a forget skips the live one
// until prune purges the entry. settleTrash finishes what a build before
// the plans cut short (trash.Settle); forget, restore and prune run it
// first.

const (
	trashDir    = layout.Trash
	sessionsDir = layout.Sessions
	// TrashDays is how many days a forgotten session stays restorable, and
	// how old an orphan or an unreferenced object must be for prune.
	TrashDays  = 7
	trashGrace = TrashDays * 24 * time.Hour
)

// Trashed is a forgotten session the trash still holds.
type Trashed struct {
	Session   string
	Directory string
	At        time.Time // when it was forgotten
}

// readTrash reads the note of trash entry id.
func (s *Store) readTrash(id string) (*trash.Note, error) { return trash.ReadNote(s.fsys, id) }

// trashWorkspace is the workspace a trash entry came from.
func (s *Store) trashWorkspace(in *trash.Note) *Workspace {
	return &Workspace{s: s, path: in.Path, key: in.Workspace, dir: workspaceDir(in.Workspace), made: true}
}

// SettleTrash finishes what an older build's forget or restore left cut
// short (see above). Forget, restore, prune and the sweep run it first.
func (s *Store) SettleTrash(ctx context.Context) error { return s.settleTrash(ctx) }

// settleTrash finishes every forget and restore an older build cut short;
// a purge cut short (trash/.purge-<id>/) is the next prune's to finish. An
// entry whose session's lock is held (a forget or restore at work in
// another process), or whose plan is pending, is left alone.
func (s *Store) settleTrash(ctx context.Context) error {
	fsys := s.fsys
	ents, err := fsys.ReadDir(trashDir)
	if vfs.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	planned := s.pendingPlans()
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return err
		}
		name := e.Name()
		if !validSessionID(name) || !e.IsDir() || planned[name] {
			continue
		}
		in, err := s.readTrash(name)
		if err != nil {
			if _, serr := fsys.Lstat(trash.Items(name)); vfs.IsNotExist(serr) && vfs.IsNotExist(err) {
				// A forget cut short before its note: nothing moved yet.
				durable.RemoveFolder(ctx, fsys, trash.Entry(name))
			}
			continue // a damaged note: left for a person (fsck names it)
		}
		w := s.trashWorkspace(in)
		l, err := fsys.Lock(lockName(w.dir, name))
		if err != nil {
			continue
		}
		err = trash.Settle(ctx, fsys, w.dir, in, s.purgeEntry)
		l.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// TrashList lists the forgotten sessions the trash holds, newest first.
func (s *Store) TrashList(ctx context.Context) ([]Trashed, error) {
	ents, err := s.fsys.ReadDir(trashDir)
	if vfs.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Trashed
	planned := s.pendingPlans()
	for _, e := range ents {
		if !validSessionID(e.Name()) || planned[e.Name()] {
			continue // a forget or restore at work, or one the next open settles
		}
		in, err := s.readTrash(e.Name())
		if err != nil {
			continue
		}
		if _, err := s.fsys.Lstat(trash.Items(in.Session)); err != nil {
			continue
		}
		out = append(out, Trashed{Session: in.Session, Directory: in.Path, At: in.At.Time})
	}
	slices.SortFunc(out, func(a, b Trashed) int { return b.At.Compare(a.At) })
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
	in, err := s.readTrash(id)
	if err != nil {
		return Trashed{}, err
	}
	w := s.trashWorkspace(in)
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

// fsckTrash names trash entries whose note cannot be read while they
// hold a session (prune and restore leave them alone, for a person to
// look at), and sessions split between the workspace and the trash (a
// build before the plans cut short; the next forget, restore or prune
// finishes the forget). An entry without a note or a session is a forget
// cut short before it began, which the next forget, restore or prune
// removes. An entry whose plan is pending is fsckPlans' to note.
func (s *Store) fsckTrash(bad, note reporter) {
	ents, _ := s.fsys.ReadDir(trashDir)
	planned := s.pendingPlans()
	for _, e := range ents {
		id := e.Name()
		if strings.HasPrefix(id, trash.PurgePrefix) {
			note(path.Join(trashDir, id), "a purge or restore cut short: the next prune removes it")
			continue
		}
		if !validSessionID(id) || planned[id] {
			continue
		}
		name := trash.NotePath(id)
		titems := trash.Items(id)
		in, err := s.readTrash(id)
		if err != nil {
			if _, serr := s.fsys.Lstat(titems); serr == nil {
				bad(name, "unreadable trash note (prune and restore leave this entry alone): %v", err)
			} else {
				note(name, "a forget cut short before it began: removed by the next forget, restore or prune")
			}
			continue
		}
		if _, err := s.fsys.Lstat(titems); err != nil {
			continue
		}
		w := s.trashWorkspace(in)
		if _, err := s.fsys.Lstat(itemsName(w.dir, id)); err == nil {
			continue // a live session of the same id: both stay, apart
		}
		if left := trash.LeftIn(s.fsys, w.dir, id); len(left) > 0 {
			bad(trash.Entry(id), "session %s is split: its conversation is in the trash, but %s still in its workspace (%s), where it cannot be opened; "+
				"the next forget, restore or prune finishes the forget (storage restore %s brings it back whole)",
				id, strings.Join(left, ", "), w.path, id)
		}
	}
}
