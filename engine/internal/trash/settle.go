package trash

import (
	"context"
	"path"
	"strings"

	"cairn/engine/internal/durable"
	"cairn/engine/internal/fileplan"
	"cairn/engine/internal/fsck"
	"cairn/engine/internal/layout"
	"cairn/internal/vfs"
)

// SettleAll finishes every forget and restore a build before the plans cut
// short (Settle); a purge cut short (trash/.purge-<id>/) is the next
// prune's to finish. An entry whose session's lock is held (a forget or
// restore at work in another process), or whose plan is pending, is left
// alone, and so is one whose note is damaged (fsck names it); an entry
// with neither a note nor an items journal (a forget cut short before its
// note) is removed.
func SettleAll(ctx context.Context, fsys vfs.FS) error {
	ents, err := fsys.ReadDir(layout.Trash)
	if vfs.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	planned := Pending(fsys)
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return err
		}
		name := e.Name()
		if !layout.ValidSessionID(name) || !e.IsDir() || planned[name] {
			continue
		}
		in, err := ReadNote(fsys, name)
		if err != nil {
			if _, serr := fsys.Lstat(Items(name)); vfs.IsNotExist(serr) && vfs.IsNotExist(err) {
				// A forget cut short before its note: nothing moved yet.
				durable.RemoveFolder(ctx, fsys, Entry(name))
			}
			continue // a damaged note: left for a person (fsck names it)
		}
		ws := layout.WorkspaceDir(in.Workspace)
		l, err := fsys.Lock(layout.Lock(ws, name))
		if err != nil {
			continue
		}
		err = Settle(ctx, fsys, ws, in, func(ctx context.Context, id string) error { return Purge(ctx, fsys, id) })
		l.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// Fsck names trash entries whose note cannot be read while they hold a
// session (prune and restore leave them alone, for a person to look at),
// and sessions split between the workspace and the trash (a build before
// the plans cut short; the next forget, restore or prune finishes the
// forget). An entry without a note or a session is a forget cut short
// before it began, which the next forget, restore or prune removes. An
// entry whose plan is pending is FsckPlans' to note.
func Fsck(fsys vfs.FS, bad, note fsck.Reporter) {
	ents, _ := fsys.ReadDir(layout.Trash)
	planned := Pending(fsys)
	for _, e := range ents {
		id := e.Name()
		if strings.HasPrefix(id, PurgePrefix) {
			note(path.Join(layout.Trash, id), "a purge or restore cut short: the next prune removes it")
			continue
		}
		if !layout.ValidSessionID(id) || planned[id] {
			continue
		}
		name := NotePath(id)
		titems := Items(id)
		in, err := ReadNote(fsys, id)
		if err != nil {
			if _, serr := fsys.Lstat(titems); serr == nil {
				bad(name, "unreadable trash note (prune and restore leave this entry alone): %v", err)
			} else {
				note(name, "a forget cut short before it began: removed by the next forget, restore or prune")
			}
			continue
		}
		if _, err := fsys.Lstat(titems); err != nil {
			continue
		}
		ws := layout.WorkspaceDir(in.Workspace)
		if _, err := fsys.Lstat(layout.Items(ws, id)); err == nil {
			continue // a live session of the same id: both stay, apart
		}
		if left := LeftIn(fsys, ws, id); len(left) > 0 {
			bad(Entry(id), "session %s is split: its conversation is in the trash, but %s still in its workspace (%s), where it cannot be opened; "+
				"the next forget, restore or prune finishes the forget (storage restore %s brings it back whole)",
				id, strings.Join(left, ", "), in.Path, id)
		}
	}
}

// ReadPlan reads session id's plan and checks that it names only that
// session's files, in its workspace folder and its trash entry.
func ReadPlan(fsys vfs.FS, id string) (*fileplan.Plan, error) {
	name := fileplan.Name(PlansDir, id)
	p, err := fileplan.Read(fsys, name)
	if err != nil {
		return nil, err
	}
	if err := CheckPlan(p, id, name); err != nil {
		return nil, err
	}
	return p, nil
}

// Session is what settling a plan needs of the engine, for the session
// whose lock the caller holds in workspace folder ws.
type Session interface {
	// Trim runs the steps of a trim of the session again (they are
	// idempotent), at the plan's time.
	Trim(ctx context.Context, p *fileplan.Plan) error
	// Rebuild rebuilds the session's record from its journal.
	Rebuild(ctx context.Context) error
	// SettleRecord rebuilds the session's record when it is stale.
	SettleRecord()
}

// Recover settles the plans a crash left in plans/, skipping one whose
// session's lock is held (its work is running). open gives the engine's
// side of plan p's session. Best effort: a plan that cannot be settled now
// stays for the next open, and one that cannot be read stays for fsck to
// name.
func Recover(ctx context.Context, fsys vfs.FS, open func(p *fileplan.Plan) Session) {
	names, err := vfs.ReadDirNames(fsys, PlansDir)
	if err != nil || len(names) == 0 {
		return
	}
	vfs.SweepTemps(fsys, PlansDir) // a plan whose write a crash cut short
	for _, n := range names {
		id, ok := strings.CutSuffix(n, ".json")
		if !ok || !layout.ValidSessionID(id) {
			continue
		}
		p, err := ReadPlan(fsys, id)
		if err != nil {
			continue
		}
		l, err := fsys.Lock(layout.Lock(layout.WorkspaceDir(p.Workspace), id))
		if err != nil {
			continue // running now, or a folder that cannot be written
		}
		SettlePlan(ctx, fsys, p, open(p))
		l.Release()
	}
}

// FinishRestore removes the trash entry of committed restore p, rebuilds
// the session's record, and removes the plan.
func FinishRestore(ctx context.Context, fsys vfs.FS, p *fileplan.Plan, s Session) error {
	if err := Purge(ctx, fsys, p.Session); err != nil {
		return err
	}
	s.Rebuild(ctx) // derived: a listing rebuilds it too
	return fileplan.Done(fsys, PlansDir, p.Session)
}

// SettlePlan replays or rolls back plan p (the engine's retention plans
// say how each kind and stage settles); the caller holds the session's
// lock.
func SettlePlan(ctx context.Context, fsys vfs.FS, p *fileplan.Plan, s Session) error {
	id, ws := p.Session, layout.WorkspaceDir(p.Workspace)
	switch {
	case p.Kind == KindForget && p.Stage == fileplan.StageCopy:
		if err := Purge(ctx, fsys, id); err != nil {
			return err
		}
	case p.Kind == KindForget:
		key := p.Files[0]
		same, err := fileplan.Same(fsys, key.From, key.To)
		if err != nil {
			return err
		}
		if _, serr := fsys.Lstat(key.From); serr == nil && !same {
			break // written since: a live session, never trashed
		}
		return FinishForget(ctx, fsys, ws, p)
	case p.Kind == KindRestore && p.Stage == fileplan.StageCopy:
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
		for _, folder := range ForgetFolders() {
			vfs.SweepTemps(fsys, layout.SessionFolder(ws, folder, id)) // a copy the crash cut short
			fsys.Remove(layout.SessionFolder(ws, folder, id))          // once empty
		}
	case p.Kind == KindRestore:
		return FinishRestore(ctx, fsys, p, s)
	case p.Kind == KindTrim:
		if fi, err := fsys.Stat(layout.Items(ws, id)); err == nil && fi.Size() == p.ItemsSize {
			if err := s.Trim(ctx, p); err != nil {
				return err
			}
		} else if err == nil {
			// Its tier line is written (the trim's last step), or the
			// session was used since: its record may be behind.
			s.SettleRecord()
		}
	}
	return fileplan.Done(fsys, PlansDir, id)
}

// FsckPlans notes each plan in plans/ (its work running now, or cut short
// by a crash: the next open settles it), and names one no open acts on.
func FsckPlans(fsys vfs.FS, bad, note fsck.Reporter) {
	names, err := vfs.ReadDirNames(fsys, PlansDir)
	if err != nil {
		return
	}
	for _, n := range names {
		name := path.Join(PlansDir, n)
		if msg, ok := fsck.DotNote(n); ok {
			note(name, "%s", msg)
			continue
		}
		id, _ := strings.CutSuffix(n, ".json")
		p, err := ReadPlan(fsys, id)
		if err != nil || !layout.ValidSessionID(id) {
			bad(name, "not a plan of a forget, restore or trim; no open acts on it")
			continue
		}
		note(name, "a %s of session %s in %s, running now or cut short by a crash (stage %s): the next open finishes or rolls it back",
			p.Kind, id, p.Path, p.Stage)
	}
}
