package engine

import (
	"context"
	"fmt"
	"path"
	"strings"

	"cairn/engine/internal/fileplan"
	"cairn/engine/internal/layout"
	"cairn/engine/internal/trash"
	"cairn/internal/vfs"
)

// Forget, restore and trim are each all or nothing for a session: before
// it changes anything, each writes a plan, plans/<id>.json at the top of
// the state folder (package fileplan draws the file; part of the format),
// and removes it last. The session's lock is held for the plan's life.
// The next open of the store finds a plan a crash left behind and settles
// it, unless the session's lock is held (the work is running now):
//
//   - forget, at stage "copy" (the session's files are being copied into
//     trash/<id>/, which did not exist before): rolled back, the trash
//     entry removed; the session is as it was. At stage "remove" (the
//     copies are whole: the commit): replayed, the workspace's files
//     removed, its items journal first. Should the workspace's items
//     journal differ from the trash's copy by then, a session of that id
//     was written since: it is live and stays, and the entry stays apart.
//   - restore, at stage "copy" (the entry's files are being copied into
//     the workspace, the items journal last): rolled back, each copy that
//     is still the trash's removed. At stage "remove": replayed, the entry
//     removed (renamed to trash/.purge-<id>/ first).
//   - trim (stage "run"): run again whole, when the items journal is still
//     the size the plan saw (a trim's steps are idempotent); otherwise its
//     tier line is written, or the session was used since, and only its
//     record is brought up to date.
//
// So no listing after an open shows a session split between the workspace
// and the trash. fsck notes each plan, and names one it cannot read.

const plansDir = trash.PlansDir

// Plan kinds.
const (
	planForget  = trash.KindForget
	planRestore = trash.KindRestore
	planTrim    = trash.KindTrim
)

// newPlan is a plan of kind for session id of w.
func (w *Workspace) newPlan(kind, id, stage string) *fileplan.Plan {
	return &fileplan.Plan{V: 1, Kind: kind, Session: id, Workspace: w.key, Path: w.path, At: mkTime(w.s.Now()), Stage: stage}
}

// forgetSession moves session id into the trash (see above, trash.Forget);
// the caller holds its lock, and the trash holds no entry of id.
func (w *Workspace) forgetSession(ctx context.Context, id string) error {
	if err := trash.Forget(ctx, w.s.fsys, w.dir, w.newPlan(planForget, id, fileplan.StageCopy)); err != nil {
		return fmt.Errorf("engine: forget %s: %w", id, err)
	}
	return nil
}

// restoreSession brings session id back from its trash entry (see above,
// trash.Restore); the caller holds its lock, and its workspace has no
// items journal of id.
func (w *Workspace) restoreSession(ctx context.Context, id string) error {
	p := w.newPlan(planRestore, id, fileplan.StageCopy)
	if err := trash.Restore(ctx, w.s.fsys, w.dir, p); err != nil {
		return err
	}
	return w.finishRestore(ctx, p)
}

// finishRestore removes the trash entry of committed restore p, rebuilds
// the session's record, and removes the plan.
func (w *Workspace) finishRestore(ctx context.Context, p *fileplan.Plan) error {
	if err := w.s.purgeEntry(ctx, p.Session); err != nil {
		return err
	}
	w.rebuildRecord(ctx, p.Session) // derived: a listing rebuilds it too
	return fileplan.Done(w.s.fsys, plansDir, p.Session)
}

// trimSession trims session id (retention_trim.go) under a plan; the
// caller holds its lock.
func (w *Workspace) trimSession(ctx context.Context, id string) error {
	fi, err := w.s.fsys.Stat(itemsName(w.dir, id))
	if err != nil {
		return fmt.Errorf("engine: trim %s: %w", id, err)
	}
	p := w.newPlan(planTrim, id, fileplan.StageRun)
	p.ItemsSize = fi.Size()
	if err := fileplan.Write(w.s.fsys, plansDir, p); err != nil {
		return fmt.Errorf("engine: trim %s: %w", id, err)
	}
	if err := w.runTrim(ctx, id, p.At); err != nil {
		return err
	}
	return fileplan.Done(w.s.fsys, plansDir, id)
}

// purgeEntry removes trash entry id (trash.Purge).
func (s *Store) purgeEntry(ctx context.Context, id string) error { return trash.Purge(ctx, s.fsys, id) }

// pendingPlans lists the sessions that have a plan in plans/.
func (s *Store) pendingPlans() map[string]bool { return trash.Pending(s.fsys) }

// recoverPlans settles the plans a crash left in plans/ (see above),
// skipping one whose session's lock is held (its work is running). Best
// effort: a plan that cannot be settled now stays for the next open, and
// one that cannot be read stays for fsck to name.
func (s *Store) recoverPlans() {
	names, err := vfs.ReadDirNames(s.fsys, plansDir)
	if err != nil || len(names) == 0 {
		return
	}
	vfs.SweepTemps(s.fsys, plansDir) // a plan whose write a crash cut short
	ctx := context.Background()
	for _, n := range names {
		id, ok := strings.CutSuffix(n, ".json")
		if !ok || !validSessionID(id) {
			continue
		}
		p, err := s.readPlan(id)
		if err != nil {
			continue
		}
		w := &Workspace{s: s, path: p.Path, key: p.Workspace, dir: workspaceDir(p.Workspace), made: true}
		l, err := s.fsys.Lock(lockName(w.dir, id))
		if err != nil {
			continue // running now, or a folder that cannot be written
		}
		w.settlePlan(ctx, p)
		l.Release()
	}
}

// readPlan reads session id's plan and checks that it names only that
// session's files, in its workspace folder and its trash entry.
func (s *Store) readPlan(id string) (*fileplan.Plan, error) {
	p, err := fileplan.Read(s.fsys, fileplan.Name(plansDir, id))
	if err != nil {
		return nil, err
	}
	if err := trash.CheckPlan(p, id, fileplan.Name(plansDir, id)); err != nil {
		return nil, err
	}
	return p, nil
}

// settlePlan replays or rolls back plan p (see above); the caller holds
// the session's lock.
func (w *Workspace) settlePlan(ctx context.Context, p *fileplan.Plan) error {
	fsys := w.s.fsys
	id := p.Session
	switch {
	case p.Kind == planForget && p.Stage == fileplan.StageCopy:
		if err := w.s.purgeEntry(ctx, id); err != nil {
			return err
		}
	case p.Kind == planForget:
		key := p.Files[0]
		same, err := fileplan.Same(fsys, key.From, key.To)
		if err != nil {
			return err
		}
		if _, serr := fsys.Lstat(key.From); serr == nil && !same {
			break // written since: a live session, never trashed
		}
		return trash.FinishForget(ctx, fsys, w.dir, p)
	case p.Kind == planRestore && p.Stage == fileplan.StageCopy:
		key := p.Files[len(p.Files)-1]
		if same, err := fileplan.Same(fsys, key.From, key.To); err != nil {
			return err
		} else if _, serr := fsys.Lstat(key.To); serr == nil && !same {
			break // written since: a live session, never removed
		}
		var copies []fileplan.Pair
		for _, f := range p.Files {
			if same, err := fileplan.Same(fsys, f.From, f.To); err == nil && same {
				copies = append(copies, f)
			}
		}
		if err := fileplan.RemoveTo(fsys, copies); err != nil {
			return err
		}
		for _, folder := range trash.ForgetFolders() {
			vfs.SweepTemps(fsys, layout.SessionFolder(w.dir, folder, id)) // a copy the crash cut short
			fsys.Remove(layout.SessionFolder(w.dir, folder, id))          // once empty
		}
	case p.Kind == planRestore:
		return w.finishRestore(ctx, p)
	case p.Kind == planTrim:
		if fi, err := fsys.Stat(itemsName(w.dir, id)); err == nil && fi.Size() == p.ItemsSize {
			if err := w.runTrim(ctx, id, p.At); err != nil {
				return err
			}
		} else if err == nil {
			// Its tier line is written (the trim's last step), or the
			// session was used since: its record may be behind.
			w.settleRecord(id)
		}
	}
	return fileplan.Done(fsys, plansDir, id)
}

// fsckPlans notes each plan in plans/ (its work running now, or cut short
// by a crash: the next open settles it), and names one no open acts on.
func (s *Store) fsckPlans(bad, note reporter) {
	names, err := vfs.ReadDirNames(s.fsys, plansDir)
	if err != nil {
		return
	}
	for _, n := range names {
		name := path.Join(plansDir, n)
		if msg, ok := dotNote(n); ok {
			note(name, "%s", msg)
			continue
		}
		id, _ := strings.CutSuffix(n, ".json")
		p, err := s.readPlan(id)
		if err != nil || !validSessionID(id) {
			bad(name, "not a plan of a forget, restore or trim; no open acts on it")
			continue
		}
		note(name, "a %s of session %s in %s, running now or cut short by a crash (stage %s): the next open finishes or rolls it back",
			p.Kind, id, p.Path, p.Stage)
	}
}
