package engine

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"cairn/engine/internal/prune"
	"cairn/engine/internal/stats"
	"cairn/engine/internal/trash"
	"cairn/internal/vfs"
	"cairn/objects"
)

// What a prune removes is worked out once, by reading only (prunePlan):
// Prune carries it out, checking each thing again just before it goes,
// and storage stats adds it up as "a prune would reclaim". So the estimate
// is what a prune then frees, whatever the state folder holds: the
// objects only a trash entry that the prune purges names are counted with
// it, and a prune that cannot tell what a store names removes nothing from
// it, and counts nothing there.

// Kinds of what a prune removes (Reclaim's parts).
const (
	pruneTrash   = "trash"   // a trash entry forgotten TrashDays ago, or one being purged
	pruneOutputs = "outputs" // an output folder of no session, untouched for TrashDays
	pruneOrphan  = "orphan"  // a file of no session (record, journal, lock, hint, hook marker), TrashDays old
	pruneObject  = "object"  // an object nothing names, TrashDays old
	pruneTemp    = "temp"    // a temp file whose writer is gone
)

// pruneItem is one thing a prune removes: a file, or a folder with all it
// holds.
type pruneItem struct {
	kind string
	name string // its path in the state folder
	z    Size   // what it takes, a folder's with all it holds
	// session is a trash entry's session ("" for a .purge- folder).
	session string
	// ws is the workspace folder of an orphan, output folder or object,
	// and of a trash entry's session.
	ws  string
	obj objects.Info
}

// prunePlan lists what a prune at now removes (see above). Workspaces whose
// folder is damaged (Workspaces' problems) are left alone, and so are the
// objects of a store it cannot tell about: unsure says why (the prune
// returns it once the rest is done).
func (s *Store) prunePlan(ctx context.Context, now time.Time) (items []pruneItem, unsure, err error) {
	purged := map[string]bool{} // trash entries the prune purges
	list, err := s.TrashList(ctx)
	if err != nil {
		return nil, nil, err
	}
	for _, t := range list {
		in, err := s.readTrash(t.Session)
		if err != nil || now.Sub(t.At) < trashGrace {
			continue
		}
		purged[t.Session] = true
		items = append(items, pruneItem{kind: pruneTrash, name: trash.Entry(t.Session), session: t.Session,
			ws: workspaceDir(in.Workspace), z: treeSize(ctx, s.fsys, trash.Entry(t.Session))})
	}
	names, _ := vfs.ReadDirNames(s.fsys, trashDir)
	planned := s.pendingPlans()
	for _, n := range names {
		if id, ok := strings.CutPrefix(n, trash.PurgePrefix); ok && !planned[id] {
			items = append(items, pruneItem{kind: pruneTrash, name: path.Join(trashDir, n), z: treeSize(ctx, s.fsys, path.Join(trashDir, n))})
		}
	}
	wss, _, err := s.Workspaces()
	if err != nil {
		return nil, nil, err
	}
	trash, err := s.trashByWorkspace()
	if err != nil {
		return nil, nil, err
	}
	for _, w := range wss {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		items = append(items, w.orphanOutputs(ctx, now)...)
		items = append(items, w.orphanFiles(ctx, now)...)
		var kept []string // the trash entries of w's sessions that stay
		for _, e := range trash[w.key] {
			if !purged[path.Base(e)] {
				kept = append(kept, e)
			}
		}
		objs, why, err := w.unreferencedObjects(ctx, now, kept)
		if err != nil {
			return nil, nil, err
		}
		if unsure == nil {
			unsure = why
		}
		items = append(items, objs...)
	}
	// Temp files of writers that are gone, wherever they are, but in what
	// goes whole.
	whole := map[string]bool{}
	for _, it := range items {
		whole[it.name] = true
	}
	err = stats.WalkNames(ctx, s.fsys, ".", func(name string, dir bool) bool {
		if whole[name] {
			return false
		}
		if !dir && vfs.TempLeftover(path.Base(name)) {
			if fi, err := s.fsys.Lstat(name); err == nil && !fi.IsDir() {
				items = append(items, pruneItem{kind: pruneTemp, name: name, z: sizeOf(fi)})
			}
		}
		return true
	})
	return items, unsure, err
}

// sizeOf and treeSize are what a file or folder takes (package stats).
func sizeOf(fi fs.FileInfo) Size { return Size(stats.Of(fi)) }
func treeSize(ctx context.Context, fsys vfs.FS, name string) Size {
	return Size(stats.Tree(ctx, fsys, name))
}

// orphanOutputs lists w's output folders whose session has no items
// journal, untouched for TrashDays.
func (w *Workspace) orphanOutputs(ctx context.Context, now time.Time) []pruneItem {
	fsys := w.s.fsys
	var out []pruneItem
	ents, _ := fsys.ReadDir(outputsDir(w.dir))
	for _, e := range ents {
		name := e.Name()
		if !e.IsDir() || w.sessionExists(name) {
			continue
		}
		dir := path.Join(outputsDir(w.dir), name)
		if newest, err := newestMtime(fsys, dir); err == nil && now.Sub(newest) >= trashGrace {
			out = append(out, pruneItem{kind: pruneOutputs, name: dir, ws: w.dir, z: treeSize(ctx, fsys, dir)})
		}
	}
	return out
}

// sessionExists reports whether session id of w has an items journal, or
// cannot be told not to (an id that is no session id has none).
func (w *Workspace) sessionExists(id string) bool {
	if !validSessionID(id) {
		return false
	}
	_, err := w.s.fsys.Lstat(itemsName(w.dir, id))
	return !vfs.IsNotExist(err)
}

// orphanFiles lists the files of w's sessions folder, the owner hints and
// the hook markers whose session does not exist, once TrashDays old; a
// hook folder goes whole when all it holds is. A lock file is listed only
// while this process can take it.
func (w *Workspace) orphanFiles(ctx context.Context, now time.Time) []pruneItem {
	fsys := w.s.fsys
	var out []pruneItem
	old := func(name string) (fs.FileInfo, bool) {
		fi, err := fsys.Lstat(name)
		return fi, err == nil && fi.Mode().IsRegular() && now.Sub(fi.ModTime()) >= trashGrace
	}
	add := func(name string) {
		if fi, ok := old(name); ok {
			out = append(out, pruneItem{kind: pruneOrphan, name: name, ws: w.dir, z: sizeOf(fi)})
		}
	}
	names, _ := vfs.ReadDirNames(fsys, path.Join(w.dir, sessionsDir))
	for _, name := range names {
		id, _, ok := strings.Cut(name, ".")
		if !ok || !validSessionID(id) || w.sessionExists(id) || vfs.IsTemp(name) {
			continue
		}
		p := path.Join(w.dir, sessionsDir, name)
		if strings.HasSuffix(name, ".lock") {
			l, err := fsys.Lock(p)
			if err != nil {
				continue
			}
			l.Release()
		}
		add(p)
	}
	hooks, _ := fsys.ReadDir(path.Join(w.dir, hooksFolder))
	for _, e := range hooks {
		if !e.IsDir() || !validSessionID(e.Name()) || w.sessionExists(e.Name()) {
			continue
		}
		dir := hooksDir(w.dir, e.Name())
		files, _ := vfs.ReadDirNames(fsys, dir)
		all := true
		for _, f := range files {
			_, ok := old(path.Join(dir, f))
			all = all && ok
		}
		if all {
			out = append(out, pruneItem{kind: pruneOrphan, name: dir, ws: w.dir, z: treeSize(ctx, fsys, dir)})
			continue
		}
		for _, f := range files {
			add(path.Join(dir, f))
		}
	}
	hints, _ := vfs.ReadDirNames(fsys, path.Join(w.dir, "owners"))
	for _, n := range hints {
		if validSessionID(n) && !w.sessionExists(n) {
			add(path.Join(w.dir, "owners", n))
		}
	}
	return out
}

// unreferencedObjects lists the objects of w's store that are TrashDays
// old and that nothing names: no file of w's sessions (any journal line,
// item, draft or record, a changes journal's records less the dropped
// ones), no workspace-level journal, no walk (prune.WalkRefs), no session in
// the trash entries kept. The references are gathered after the walk of
// the store, so an object stored during it and named by a line written
// before the gathering is kept. When it cannot tell what a file or folder
// names, it lists nothing and says why (unsure): cannot tell means keep.
func (w *Workspace) unreferencedObjects(ctx context.Context, now time.Time, kept []string) (items []pruneItem, unsure, err error) {
	fsys := w.s.fsys
	store := w.objects()
	var old []objects.Info
	var sizes []Size
	err = store.Walk(ctx, func(in objects.Info) error {
		fi, err := fsys.Lstat(store.Path(in.ID, in.Compressed))
		if err == nil && now.Sub(fi.ModTime()) >= trashGrace {
			old = append(old, in)
			sizes = append(sizes, sizeOf(fi))
		}
		return nil
	})
	if err != nil && ctx.Err() != nil {
		return nil, nil, err
	}
	if len(old) == 0 {
		return nil, nil, nil
	}
	refs, unsure := w.objectRefs(kept)
	if unsure != nil {
		return nil, fmt.Errorf("engine: prune the objects of %s: %w; none was removed", w.path, unsure), nil
	}
	for i, in := range old {
		if !refs[in.ID.String()] {
			items = append(items, pruneItem{kind: pruneObject, name: store.Path(in.ID, in.Compressed), ws: w.dir, obj: in, z: sizes[i]})
		}
	}
	return items, nil, nil
}

// objectRefs gathers the objects w's files and the trash entries kept name
// (unreferencedObjects, package prune), or says why it cannot tell.
func (w *Workspace) objectRefs(kept []string) (map[string]bool, error) {
	drops, err := w.readDrops()
	if err != nil {
		return nil, fmt.Errorf("cannot tell which records were dropped (%w)", err)
	}
	return prune.Refs(w.s.fsys, w.dir, drops, kept)
}

// reclaim adds up what items take, by kind.
func reclaim(items []pruneItem) Reclaim {
	var r Reclaim
	for _, it := range items {
		switch it.kind {
		case pruneTrash:
			r.OldTrash.add(it.z)
		case pruneOutputs:
			r.OrphanOutputs.add(it.z)
		case pruneOrphan:
			r.OrphanFiles.add(it.z)
		case pruneObject:
			r.UnreferencedObjects.add(it.z)
		case pruneTemp:
			r.Temps.add(it.z)
		}
		r.Size.add(it.z)
	}
	return r
}

// sortPrune orders items as a prune removes them: trash entries first
// (the objects only they name are not referenced once they are gone),
// then each workspace's outputs, orphans and objects, workspace by
// workspace in order (their places), then temp files.
func sortPrune(items []pruneItem, order map[string]int) {
	rank := map[string]int{pruneTrash: 0, pruneOutputs: 1, pruneOrphan: 1, pruneObject: 1, pruneTemp: 2}
	slices.SortStableFunc(items, func(a, b pruneItem) int {
		if c := rank[a.kind] - rank[b.kind]; c != 0 || rank[a.kind] != 1 {
			return c
		}
		return order[a.ws] - order[b.ws]
	})
}
