package trash

import (
	"context"
	"encoding/json"
	"path"
	"strings"

	"cairn/engine/internal/durable"
	"cairn/engine/internal/fileplan"
	"cairn/engine/internal/layout"
	"cairn/internal/vfs"
)

// PlansDir holds the plans of forgets, restores and trims.
const PlansDir = layout.Plans

// Forget moves session id of workspace folder ws into the trash under
// plan p (kind forget, stage copy, At set): the plan, the entry's note, a
// copy of every file, the plan at stage remove (the commit), then
// FinishForget. The caller holds the session's lock, and the trash holds
// no entry of id.
func Forget(ctx context.Context, fsys vfs.FS, ws string, p *fileplan.Plan) error {
	id, entry := p.Session, Entry(p.Session)
	subs, err := SessionFiles(fsys, ws, id)
	if err != nil {
		return err
	}
	p.Files = Pairs(subs, ws, entry)
	if err := fileplan.Write(fsys, PlansDir, p); err != nil {
		return err
	}
	if err := vfs.MkdirAllDurable(fsys, layout.SessionsDir(entry), vfs.DirPerm); err != nil {
		return err
	}
	note, _ := json.Marshal(Note{V: 1, Session: id, Workspace: p.Workspace, Path: p.Path, At: p.At})
	if err := vfs.WriteFileAtomic(fsys, NotePath(id), append(note, '\n')); err != nil {
		return err
	}
	if err := fileplan.Copy(ctx, fsys, p.Files); err != nil {
		return err
	}
	p.Stage = fileplan.StageRemove
	if err := fileplan.Write(fsys, PlansDir, p); err != nil {
		return err
	}
	return FinishForget(ctx, fsys, ws, p)
}

// FinishForget removes the workspace's files of committed forget p, its
// items journal first, then the plan.
func FinishForget(ctx context.Context, fsys vfs.FS, ws string, p *fileplan.Plan) error {
	if err := fileplan.RemoveFrom(fsys, p.Files); err != nil {
		return err
	}
	for _, folder := range ForgetFolders() {
		if err := durable.RemoveFolder(ctx, fsys, layout.SessionFolder(ws, folder, p.Session)); err != nil {
			return err
		}
	}
	fsys.Remove(layout.Owner(ws, p.Session))
	return fileplan.Done(fsys, PlansDir, p.Session)
}

// Restore copies session id back from its trash entry into workspace
// folder ws under plan p (kind restore, stage copy), the items journal
// last (its arrival makes the session), and commits the plan at stage
// remove; the caller then purges the entry and removes the plan. The
// caller holds the session's lock, and ws has no items journal of id.
func Restore(ctx context.Context, fsys vfs.FS, ws string, p *fileplan.Plan) error {
	id, entry := p.Session, Entry(p.Session)
	subs, err := SessionFiles(fsys, entry, id)
	if err != nil {
		return err
	}
	subs = append(subs[1:], subs[0]) // the items journal last
	p.Files = Pairs(subs, entry, ws)
	if err := fileplan.Write(fsys, PlansDir, p); err != nil {
		return err
	}
	if err := fileplan.Copy(ctx, fsys, p.Files); err != nil {
		return err
	}
	p.Stage = fileplan.StageRemove
	return fileplan.Write(fsys, PlansDir, p)
}

// Purge removes trash entry id: renamed to a .purge- name first, so that
// an entry half removed is never taken for a forgotten session.
func Purge(ctx context.Context, fsys vfs.FS, id string) error {
	gone := path.Join(layout.Trash, PurgePrefix+id)
	if err := fsys.Rename(Entry(id), gone); err != nil && !vfs.IsNotExist(err) {
		return err
	}
	if err := fsys.SyncDir(layout.Trash); err != nil && !vfs.IsNotExist(err) {
		return err
	}
	return durable.RemoveFolder(ctx, fsys, gone)
}

// Pending lists the sessions that have a plan in plans/.
func Pending(fsys vfs.FS) map[string]bool {
	names, _ := vfs.ReadDirNames(fsys, PlansDir)
	out := map[string]bool{}
	for _, n := range names {
		if id, ok := strings.CutSuffix(n, ".json"); ok && layout.ValidSessionID(id) {
			out[id] = true
		}
	}
	return out
}
