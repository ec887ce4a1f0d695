package engine

import (
	"context"
	"path"
	"time"

	"cairn/engine/internal/durable"
	"cairn/internal/vfs"
)

// cleanOrphanOutputs removes the output folders whose session has no items
// journal (a failed delete, an interrupted write, a fork that never
// started) once the newest modification time in the folder is at least
// grace before now. It returns the names of the folders it removed. Outputs
// of a session that exists are never touched; only temp files left there
// by interrupted writes whose writer is gone (vfs.SweepTemps) are removed.
func (w *Workspace) cleanOrphanOutputs(ctx context.Context, now time.Time, grace time.Duration) ([]string, error) {
	return w.cleanOrphans(ctx, outputsDir(w.dir), now, grace)
}

// cleanOrphanTasks does for the task folders (tasks/<session>/, task.go)
// what cleanOrphanOutputs does for the output folders.
func (w *Workspace) cleanOrphanTasks(ctx context.Context, now time.Time, grace time.Duration) ([]string, error) {
	return w.cleanOrphans(ctx, tasksDir(w.dir), now, grace)
}

// cleanOrphans removes the folders of parent named by a session that has
// no items journal, once older than grace.
func (w *Workspace) cleanOrphans(ctx context.Context, parent string, now time.Time, grace time.Duration) ([]string, error) {
	fsys := w.s.fsys
	ents, err := fsys.ReadDir(parent)
	if err != nil {
		if vfs.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	var removed []string
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return removed, err
		}
		if !e.IsDir() {
			continue
		}
		name := e.Name()
		dir := path.Join(parent, name)
		live := false
		if validSessionID(name) {
			_, err := fsys.Stat(itemsName(w.dir, name))
			live = err == nil
			if err != nil && !vfs.IsNotExist(err) {
				continue // cannot tell: keep it
			}
		}
		if live {
			vfs.SweepTemps(fsys, dir) // best effort
			continue
		}
		newest, err := newestMtime(fsys, dir)
		if err != nil || now.Sub(newest) < grace {
			continue
		}
		if err := durable.RemoveFolder(ctx, fsys, dir); err != nil {
			return removed, err
		}
		removed = append(removed, name)
	}
	return removed, nil
}

// newestMtime is the latest modification time of folder dir and its files.
func newestMtime(fsys vfs.FS, dir string) (time.Time, error) {
	info, err := fsys.Stat(dir)
	if err != nil {
		return time.Time{}, err
	}
	newest := info.ModTime()
	ents, err := fsys.ReadDir(dir)
	if err != nil {
		return time.Time{}, err
	}
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil {
			return time.Time{}, err
		}
		if t := fi.ModTime(); t.After(newest) {
			newest = t
		}
	}
	return newest, nil
}

// cleanOutputsOnOpen runs cleanOrphanOutputs with outputGrace the first time
// a session of w is opened through its store (Store.outputsCleaned). It is
// best effort: a failure leaves the orphans for the next store.
func (w *Workspace) cleanOutputsOnOpen(ctx context.Context) {
	if _, done := w.s.outputsCleaned.LoadOrStore(w.dir, struct{}{}); done {
		return
	}
	w.cleanOrphanOutputs(ctx, w.s.Now(), outputGrace)
	w.cleanOrphanTasks(ctx, w.s.Now(), outputGrace)
}
