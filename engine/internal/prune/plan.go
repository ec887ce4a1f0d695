package prune

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"

	"cairn/engine/internal/layout"
	"cairn/engine/internal/outputs"
	"cairn/engine/internal/stats"
	"cairn/engine/internal/trash"
	"cairn/internal/vfs"
	"cairn/objects"
)

// Kinds of what a prune removes.
const (
	Trash   = "trash"   // a trash entry forgotten Grace ago, or one being purged
	Outputs = "outputs" // an output folder of no session, untouched for Grace
	Orphan  = "orphan"  // a file of no session (record, journal, lock, hint, hook marker), Grace old
	Object  = "object"  // an object nothing names, Grace old
	Temp    = "temp"    // a temp file whose writer is gone
)

// Item is one thing a prune removes: a file, or a folder with all it
// holds.
type Item struct {
	Kind string
	Name string     // its path in the state folder
	Size stats.Size // what it takes, a folder's with all it holds
	// Session is a trash entry's session ("" for a .purge- folder).
	Session string
	// WS is the workspace folder of an orphan, output folder or object,
	// and of a trash entry's session.
	WS  string
	Obj objects.Info
}

// Workspace is one workspace as a prune reads it.
type Workspace struct {
	Dir     string         // its folder in the state folder
	Key     string         // its workspace key
	Path    string         // the directory, for messages
	Objects *objects.Store // its object store
	// Drops reads the records its drops.jsonl drops, by session.
	Drops func() (map[string]map[string]bool, error)
}

// Plan lists what a prune at now removes, each kind once it is grace old
// (temp files whatever their age). wss are the workspaces whose folder is
// sound: the others are left alone, and so are the objects of a store
// Plan cannot tell about: unsure says why (the prune returns it once the
// rest is done).
func Plan(ctx context.Context, fsys vfs.FS, now time.Time, grace time.Duration, wss []Workspace) (items []Item, unsure, err error) {
	purged := map[string]bool{} // trash entries the prune purges
	list, err := trash.List(fsys)
	if err != nil {
		return nil, nil, err
	}
	for _, in := range list {
		if now.Sub(in.At.Time) < grace {
			continue
		}
		purged[in.Session] = true
		items = append(items, Item{Kind: Trash, Name: trash.Entry(in.Session), Session: in.Session,
			WS: layout.WorkspaceDir(in.Workspace), Size: stats.Tree(ctx, fsys, trash.Entry(in.Session))})
	}
	names, _ := vfs.ReadDirNames(fsys, layout.Trash)
	planned := trash.Pending(fsys)
	for _, n := range names {
		if id, ok := strings.CutPrefix(n, trash.PurgePrefix); ok && !planned[id] {
			name := path.Join(layout.Trash, n)
			items = append(items, Item{Kind: Trash, Name: name, Size: stats.Tree(ctx, fsys, name)})
		}
	}
	byWS, err := trash.ByWorkspace(fsys)
	if err != nil {
		return nil, nil, err
	}
	for _, w := range wss {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		items = append(items, orphanOutputs(ctx, fsys, w.Dir, now, grace)...)
		items = append(items, orphanFiles(ctx, fsys, w.Dir, now, grace)...)
		var kept []string // the trash entries of w's sessions that stay
		for _, e := range byWS[w.Key] {
			if !purged[path.Base(e)] {
				kept = append(kept, e)
			}
		}
		objs, why, err := unreferenced(ctx, fsys, w, now, grace, kept)
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
		whole[it.Name] = true
	}
	err = stats.WalkNames(ctx, fsys, ".", func(name string, dir bool) bool {
		if whole[name] {
			return false
		}
		if !dir && vfs.TempLeftover(path.Base(name)) {
			if fi, err := fsys.Lstat(name); err == nil && !fi.IsDir() {
				items = append(items, Item{Kind: Temp, Name: name, Size: stats.Of(fi)})
			}
		}
		return true
	})
	return items, unsure, err
}

// Totals adds up what items take, by kind.
func Totals(items []Item) map[string]stats.Size {
	out := map[string]stats.Size{}
	for _, it := range items {
		z := out[it.Kind]
		z.Add(it.Size)
		out[it.Kind] = z
	}
	return out
}

// sessionExists reports whether session id of workspace folder ws has an
// items journal, or cannot be told not to (an id that is no session id
// has none).
func sessionExists(fsys vfs.FS, ws, id string) bool {
	if !layout.ValidSessionID(id) {
		return false
	}
	_, err := fsys.Lstat(layout.Items(ws, id))
	return !vfs.IsNotExist(err)
}

// orphanOutputs lists ws's output folders whose session has no items
// journal, untouched for grace.
func orphanOutputs(ctx context.Context, fsys vfs.FS, ws string, now time.Time, grace time.Duration) []Item {
	var out []Item
	dirs := path.Join(ws, layout.Outputs)
	ents, _ := fsys.ReadDir(dirs)
	for _, e := range ents {
		name := e.Name()
		if !e.IsDir() || sessionExists(fsys, ws, name) {
			continue
		}
		dir := path.Join(dirs, name)
		if newest, err := outputs.Newest(fsys, dir); err == nil && now.Sub(newest) >= grace {
			out = append(out, Item{Kind: Outputs, Name: dir, WS: ws, Size: stats.Tree(ctx, fsys, dir)})
		}
	}
	return out
}

// orphanFiles lists the files of ws's sessions folder, the owner hints and
// the hook markers whose session does not exist, once grace old; a hook
// folder goes whole when all it holds is. A lock file is listed only while
// this process can take it.
func orphanFiles(ctx context.Context, fsys vfs.FS, ws string, now time.Time, grace time.Duration) []Item {
	var out []Item
	old := func(name string) (fs.FileInfo, bool) {
		fi, err := fsys.Lstat(name)
		return fi, err == nil && fi.Mode().IsRegular() && now.Sub(fi.ModTime()) >= grace
	}
	add := func(name string) {
		if fi, ok := old(name); ok {
			out = append(out, Item{Kind: Orphan, Name: name, WS: ws, Size: stats.Of(fi)})
		}
	}
	names, _ := vfs.ReadDirNames(fsys, layout.SessionsDir(ws))
	for _, name := range names {
		id, _, ok := strings.Cut(name, ".")
		if !ok || !layout.ValidSessionID(id) || sessionExists(fsys, ws, id) || vfs.IsTemp(name) {
			continue
		}
		p := path.Join(layout.SessionsDir(ws), name)
		if strings.HasSuffix(name, layout.LockSuffix) {
			l, err := fsys.Lock(p)
			if err != nil {
				continue
			}
			l.Release()
		}
		add(p)
	}
	hooks, _ := fsys.ReadDir(path.Join(ws, layout.Hooks))
	for _, e := range hooks {
		if !e.IsDir() || !layout.ValidSessionID(e.Name()) || sessionExists(fsys, ws, e.Name()) {
			continue
		}
		dir := layout.SessionFolder(ws, layout.Hooks, e.Name())
		files, _ := vfs.ReadDirNames(fsys, dir)
		all := true
		for _, f := range files {
			_, ok := old(path.Join(dir, f))
			all = all && ok
		}
		if all {
			out = append(out, Item{Kind: Orphan, Name: dir, WS: ws, Size: stats.Tree(ctx, fsys, dir)})
			continue
		}
		for _, f := range files {
			add(path.Join(dir, f))
		}
	}
	hints, _ := vfs.ReadDirNames(fsys, path.Join(ws, layout.Owners))
	for _, n := range hints {
		if layout.ValidSessionID(n) && !sessionExists(fsys, ws, n) {
			add(layout.Owner(ws, n))
		}
	}
	return out
}

// unreferenced lists the objects of w's store that are grace old and that
// nothing names (Refs): no file of w's sessions, no workspace-level
// journal, no walk, no session in the trash entries kept. The references
// are gathered after the walk of the store, so an object stored during it
// and named by a line written before the gathering is kept. When it cannot
// tell what a file or folder names, it lists nothing and says why
// (unsure): cannot tell means keep.
func unreferenced(ctx context.Context, fsys vfs.FS, w Workspace, now time.Time, grace time.Duration, kept []string) (items []Item, unsure, err error) {
	store := w.Objects
	var old []objects.Info
	var sizes []stats.Size
	err = store.Walk(ctx, func(in objects.Info) error {
		fi, err := fsys.Lstat(store.Path(in.ID, in.Compressed))
		if err == nil && now.Sub(fi.ModTime()) >= grace {
			old = append(old, in)
			sizes = append(sizes, stats.Of(fi))
		}
		return nil
	})
	if err != nil && ctx.Err() != nil {
		return nil, nil, err
	}
	if len(old) == 0 {
		return nil, nil, nil
	}
	refs, unsure := workspaceRefs(fsys, w, kept)
	if unsure != nil {
		return nil, fmt.Errorf("engine: prune the objects of %s: %w; none was removed", w.Path, unsure), nil
	}
	for i, in := range old {
		if !refs[in.ID.String()] {
			items = append(items, Item{Kind: Object, Name: store.Path(in.ID, in.Compressed), WS: w.Dir, Obj: in, Size: sizes[i]})
		}
	}
	return items, nil, nil
}

// workspaceRefs gathers the objects w's files and the trash entries kept
// name (Refs), or says why it cannot tell.
func workspaceRefs(fsys vfs.FS, w Workspace, kept []string) (map[string]bool, error) {
	drops, err := w.Drops()
	if err != nil {
		return nil, fmt.Errorf("cannot tell which records were dropped (%w)", err)
	}
	return Refs(fsys, w.Dir, drops, kept)
}
