package engine

import (
	"context"
	"errors"
	"path"
	"strings"
	"time"

	"cairn/engine/internal/durable"
	"cairn/engine/internal/trash"
	"cairn/internal/vfs"
)

// Prune removes what nothing needs any more, each kind only once it is at
// least TrashDays days old, so that a writer at work is never raced:
//
//   - forgotten sessions the trash has held that long;
//   - orphaned artifacts: output folders, journals, records, locks,
//     owner hints and hook markers of sessions that do not exist (no
//     items journal);
//   - objects of a workspace store that no file of the workspace's
//     sessions names (any journal line, item, draft or record, and the
//     journals of the workspace's sessions the trash keeps), no
//     workspace-level journal (drops.jsonl), and no walk relies on (the
//     stat cache, the walks and pending markers kept between an agent's
//     hooks, those of its sessions in the trash too: walk_refs.go);
//
// and, whatever their age, temp files whose writer is gone. What it
// removes is listed first by prunePlan (prune_plan.go), which storage
// stats adds up. Every step is idempotent: a prune cut short is finished
// by the next. The usage ledger (usage.jsonl) is never touched.

// PruneReport says what a prune removed.
type PruneReport struct {
	Trash       int   `json:"trash"`        // forgotten sessions purged
	Orphans     int   `json:"orphans"`      // orphaned files and folders removed
	Objects     int   `json:"objects"`      // unreferenced objects removed
	ObjectBytes int64 `json:"object_bytes"` // their stored size
	Temps       int   `json:"temps"`        // temp files of gone writers removed
	// Freed is what everything removed took, as storage stats counts it
	// (its "reclaim" said as much before the prune).
	Freed Size `json:"freed"`
}

// PruneOptions tune a prune.
type PruneOptions struct {
	// Progress, when set, is told how many workspaces are done of how many.
	Progress func(done, total int)
}

// Prune runs the prune; see above. It settles the trash first, then
// removes what prunePlan lists, each thing checked again just before it
// goes: a trash entry under its session's lock (one a restore holds stays,
// and so do the objects of its workspace, which the plan counted on its
// going), an orphan while it still has no session and is still old, an
// object while it is still old (one stored again since is kept), a temp
// file while its writer is still gone.
func (s *Store) Prune(ctx context.Context, opt PruneOptions) (PruneReport, error) {
	var rep PruneReport
	if err := s.settleTrash(ctx); err != nil {
		return rep, err
	}
	now := s.now()
	items, unsure, err := s.prunePlan(ctx, now)
	if err != nil {
		return rep, err
	}
	wss, _, err := s.Workspaces()
	if err != nil {
		return rep, err
	}
	order := map[string]int{} // workspace folder -> its place, for progress
	for i, w := range wss {
		order[w.dir] = i + 1
	}
	sortPrune(items, order)
	kept := map[string]bool{} // workspace folders whose objects stay: a purge did not happen
	done := 0                 // workspaces done, for progress
	progress := func(upTo int) {
		for ; done < upTo && opt.Progress != nil; done++ {
			opt.Progress(done+1, len(wss))
		}
	}
	for _, it := range items {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		switch {
		case it.kind == pruneTemp:
			progress(len(wss))
		case it.kind != pruneTrash:
			progress(order[it.ws] - 1)
		}
		gone, err := s.pruneOne(ctx, now, it, kept)
		if err != nil {
			return rep, err
		}
		if !gone {
			continue
		}
		rep.Freed.add(it.z)
		switch it.kind {
		case pruneTrash:
			if it.session != "" {
				rep.Trash++
			}
		case pruneOutputs, pruneOrphan:
			rep.Orphans++
		case pruneObject:
			rep.Objects++
			rep.ObjectBytes += it.obj.Stored
		case pruneTemp:
			rep.Temps++
		}
	}
	progress(len(wss))
	return rep, unsure
}

// pruneOne removes item it if it is still what the plan saw; done says it
// went. kept collects the workspace folders whose objects must stay.
func (s *Store) pruneOne(ctx context.Context, now time.Time, it pruneItem, kept map[string]bool) (done bool, err error) {
	fsys := s.fsys
	old := func(name string) bool {
		fi, err := fsys.Lstat(name)
		return err == nil && now.Sub(fi.ModTime()) >= trashGrace
	}
	switch it.kind {
	case pruneTrash:
		if it.session == "" { // a purge cut short
			return true, durable.RemoveFolder(ctx, fsys, it.name)
		}
		l, lerr := fsys.Lock(lockName(it.ws, it.session))
		if errors.Is(lerr, vfs.ErrLocked) {
			kept[it.ws] = true // a restore at work: its objects stay
			return false, nil
		}
		if l != nil {
			defer l.Release() // none when the workspace folder is gone: no restore can be at work
		}
		if _, err := fsys.Lstat(path.Join(it.name, trash.NoteName)); err != nil {
			kept[it.ws] = true // restored or purged since
			return false, nil
		}
		return true, s.purgeEntry(ctx, it.session)
	case pruneOutputs:
		w := &Workspace{s: s, dir: it.ws}
		newest, err := newestMtime(fsys, it.name)
		if err != nil || now.Sub(newest) < trashGrace || w.sessionExists(path.Base(it.name)) {
			return false, nil
		}
		return true, durable.RemoveFolder(ctx, fsys, it.name)
	case pruneOrphan:
		w := &Workspace{s: s, dir: it.ws}
		id, _, _ := strings.Cut(path.Base(it.name), ".")
		if strings.HasPrefix(it.name, path.Join(it.ws, hooksFolder)+"/") {
			id = path.Base(path.Dir(it.name))
			if path.Dir(it.name) == path.Join(it.ws, hooksFolder) {
				id = path.Base(it.name) // the whole folder
			}
		}
		if w.sessionExists(id) {
			return false, nil
		}
		fi, err := fsys.Lstat(it.name)
		if err != nil {
			return false, nil
		}
		if fi.IsDir() {
			return true, durable.RemoveFolder(ctx, fsys, it.name)
		}
		if !old(it.name) {
			return false, nil
		}
		if strings.HasSuffix(it.name, ".lock") {
			l, err := fsys.Lock(it.name)
			if err != nil {
				return false, nil
			}
			defer l.Release()
		}
		if err := fsys.Remove(it.name); err != nil {
			return false, nil
		}
		fsys.SyncDir(path.Dir(it.name))
		return true, nil
	case pruneObject:
		if kept[it.ws] || !old(it.name) {
			return false, nil // stored again since the plan: a line is about to name it
		}
		w := &Workspace{s: s, dir: it.ws}
		return w.objects().Remove(it.obj.ID) == nil, nil
	case pruneTemp:
		if !vfs.TempLeftover(path.Base(it.name)) {
			return false, nil
		}
		return fsys.Remove(it.name) == nil, nil
	}
	return false, nil
}

// trashByWorkspace maps workspace keys to the trash entries of their
// sessions.
func (s *Store) trashByWorkspace() (map[string][]string, error) {
	ents, err := s.fsys.ReadDir(trashDir)
	if vfs.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, e := range ents {
		if in, err := s.readTrash(e.Name()); err == nil {
			out[in.Workspace] = append(out[in.Workspace], trash.Entry(e.Name()))
		}
	}
	return out, nil
}
