package outputs

import (
	"context"
	"path"
	"time"

	"cairn/engine/internal/durable"
	"cairn/engine/internal/layout"
	"cairn/internal/vfs"
)

// CleanOrphans removes the folders of parent (a workspace folder's
// outputs/ or tasks/) named by a session of workspace folder ws that has
// no items journal, once the newest modification time in the folder is at
// least grace before now. It returns the names of the folders it removed.
// A folder of a session that exists is never removed; only temp files
// left there by interrupted writes whose writer is gone (vfs.SweepTemps)
// are.
func CleanOrphans(ctx context.Context, fsys vfs.FS, ws, parent string, now time.Time, grace time.Duration) ([]string, error) {
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
		if layout.ValidSessionID(name) {
			_, err := fsys.Stat(layout.Items(ws, name))
			live = err == nil
			if err != nil && !vfs.IsNotExist(err) {
				continue // cannot tell: keep it
			}
		}
		if live {
			vfs.SweepTemps(fsys, dir) // best effort
			continue
		}
		newest, err := Newest(fsys, dir)
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

// Newest is the latest modification time of folder dir and its files.
func Newest(fsys vfs.FS, dir string) (time.Time, error) {
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
