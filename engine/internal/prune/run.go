package prune

import (
	"context"
	"errors"
	"path"
	"slices"
	"strings"
	"time"

	"cairn/engine/internal/durable"
	"cairn/engine/internal/layout"
	"cairn/engine/internal/outputs"
	"cairn/engine/internal/stats"
	"cairn/engine/internal/trash"
	"cairn/internal/vfs"
)

// Report says what a prune removed.
type Report struct {
	Trash       int   `json:"trash"`        // forgotten sessions purged
	Orphans     int   `json:"orphans"`      // orphaned files and folders removed
	Objects     int   `json:"objects"`      // unreferenced objects removed
	ObjectBytes int64 `json:"object_bytes"` // their stored size
	Temps       int   `json:"temps"`        // temp files of gone writers removed
	// Freed is what everything removed took, as storage stats counts it
	// (its "reclaim" said as much before the prune).
	Freed stats.Size `json:"freed"`
}

// Run removes items (Plan's, for the same wss, now and grace), each
// checked again just before it goes: a trash entry under its session's
// lock (one a restore holds stays, and so do the objects of its
// workspace, which the plan counted on its going), an orphan while it
// still has no session and is still old, an object while it is still old
// (one stored again since is kept), a temp file while its writer is still
// gone. progress, when set, is told how many workspaces are done of how
// many.
func Run(ctx context.Context, fsys vfs.FS, now time.Time, grace time.Duration, items []Item, wss []Workspace, progress func(done, total int)) (Report, error) {
	var rep Report
	order := map[string]int{} // workspace folder -> its place, for progress
	stores := map[string]Workspace{}
	for i, w := range wss {
		order[w.Dir] = i + 1
		stores[w.Dir] = w
	}
	sortItems(items, order)
	r := runner{fsys: fsys, now: now, grace: grace, stores: stores, kept: map[string]bool{}}
	done := 0 // workspaces done, for progress
	upTo := func(n int) {
		for ; done < n && progress != nil; done++ {
			progress(done+1, len(wss))
		}
	}
	for _, it := range items {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		switch {
		case it.Kind == Temp:
			upTo(len(wss))
		case it.Kind != Trash:
			upTo(order[it.WS] - 1)
		}
		gone, err := r.one(ctx, it)
		if err != nil {
			return rep, err
		}
		if !gone {
			continue
		}
		rep.Freed.Add(it.Size)
		switch it.Kind {
		case Trash:
			if it.Session != "" {
				rep.Trash++
			}
		case Outputs, Orphan:
			rep.Orphans++
		case Object:
			rep.Objects++
			rep.ObjectBytes += it.Obj.Stored
		case Temp:
			rep.Temps++
		}
	}
	upTo(len(wss))
	return rep, nil
}

// sortItems orders items as a prune removes them: trash entries first
// (the objects only they name are not referenced once they are gone),
// then each workspace's outputs, orphans and objects, workspace by
// workspace in order (their places), then temp files.
func sortItems(items []Item, order map[string]int) {
	rank := map[string]int{Trash: 0, Outputs: 1, Orphan: 1, Object: 1, Temp: 2}
	slices.SortStableFunc(items, func(a, b Item) int {
		if c := rank[a.Kind] - rank[b.Kind]; c != 0 || rank[a.Kind] != 1 {
			return c
		}
		return order[a.WS] - order[b.WS]
	})
}

// runner removes the items of one prune.
type runner struct {
	fsys   vfs.FS
	now    time.Time
	grace  time.Duration
	stores map[string]Workspace // by folder
	kept   map[string]bool      // workspace folders whose objects stay: a purge did not happen
}

// old reports whether file name is grace old.
func (r *runner) old(name string) bool {
	fi, err := r.fsys.Lstat(name)
	return err == nil && r.now.Sub(fi.ModTime()) >= r.grace
}

// one removes item it if it is still what the plan saw; done says it went.
func (r *runner) one(ctx context.Context, it Item) (done bool, err error) {
	fsys := r.fsys
	switch it.Kind {
	case Trash:
		if it.Session == "" { // a purge cut short
			return true, durable.RemoveFolder(ctx, fsys, it.Name)
		}
		l, lerr := fsys.Lock(layout.Lock(it.WS, it.Session))
		if errors.Is(lerr, vfs.ErrLocked) {
			r.kept[it.WS] = true // a restore at work: its objects stay
			return false, nil
		}
		if l != nil {
			defer l.Release() // none when the workspace folder is gone: no restore can be at work
		}
		if _, err := fsys.Lstat(path.Join(it.Name, trash.NoteName)); err != nil {
			r.kept[it.WS] = true // restored or purged since
			return false, nil
		}
		return true, trash.Purge(ctx, fsys, it.Session)
	case Outputs:
		newest, err := outputs.Newest(fsys, it.Name)
		if err != nil || r.now.Sub(newest) < r.grace || sessionExists(fsys, it.WS, path.Base(it.Name)) {
			return false, nil
		}
		return true, durable.RemoveFolder(ctx, fsys, it.Name)
	case Orphan:
		return r.orphan(ctx, it)
	case Object:
		if r.kept[it.WS] || !r.old(it.Name) {
			return false, nil // stored again since the plan: a line is about to name it
		}
		return r.stores[it.WS].Objects.Remove(it.Obj.ID) == nil, nil
	case Temp:
		if !vfs.TempLeftover(path.Base(it.Name)) {
			return false, nil
		}
		return fsys.Remove(it.Name) == nil, nil
	}
	return false, nil
}

// orphan removes orphan it while it still has no session and is still old.
func (r *runner) orphan(ctx context.Context, it Item) (bool, error) {
	fsys := r.fsys
	id, _, _ := strings.Cut(path.Base(it.Name), ".")
	hooks := path.Join(it.WS, layout.Hooks)
	if strings.HasPrefix(it.Name, hooks+"/") {
		id = path.Base(path.Dir(it.Name))
		if path.Dir(it.Name) == hooks {
			id = path.Base(it.Name) // the whole folder
		}
	}
	if sessionExists(fsys, it.WS, id) {
		return false, nil
	}
	fi, err := fsys.Lstat(it.Name)
	if err != nil {
		return false, nil
	}
	if fi.IsDir() {
		return true, durable.RemoveFolder(ctx, fsys, it.Name)
	}
	if !r.old(it.Name) {
		return false, nil
	}
	if strings.HasSuffix(it.Name, layout.LockSuffix) {
		l, err := fsys.Lock(it.Name)
		if err != nil {
			return false, nil
		}
		defer l.Release()
	}
	if err := fsys.Remove(it.Name); err != nil {
		return false, nil
	}
	fsys.SyncDir(path.Dir(it.Name))
	return true, nil
}
