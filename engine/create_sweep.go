package engine

import (
	"path"

	"cairn/internal/vfs"
)

// removeUnmade collects what session creations stopped before their items
// journal got its name (a kill, a power loss) left in the sessions folder:
// the temp files of a session that does not exist. A creation holds the
// new session's lock from before its first temp file until its items
// journal is in place, so a temp file whose session's lock is free and
// whose session does not exist is a leftover; the lock file goes with it.
func (w *Workspace) removeUnmade() {
	fsys := w.s.fsys
	dir := path.Join(w.dir, "sessions")
	ents, err := fsys.ReadDir(dir)
	if err != nil {
		return
	}
	temps := map[string][]string{}
	for _, e := range ents {
		name := e.Name()
		// "." + id + "." + the name it was to take + the temp suffix
		if !e.Type().IsRegular() || !vfs.IsTemp(name) || len(name) < 38 || name[37] != '.' {
			continue
		}
		if id := name[1:37]; validSessionID(id) {
			temps[id] = append(temps[id], name)
		}
	}
	for id, names := range temps {
		if _, err := fsys.Lstat(itemsName(w.dir, id)); !vfs.IsNotExist(err) {
			continue // the session exists: its own open collects them
		}
		l, err := fsys.Lock(lockName(w.dir, id))
		if err != nil {
			continue // its creation is under way
		}
		if _, err := fsys.Lstat(itemsName(w.dir, id)); vfs.IsNotExist(err) {
			for _, n := range names {
				fsys.Remove(path.Join(dir, n))
			}
			l.Release()
			fsys.Remove(lockName(w.dir, id))
			continue
		}
		l.Release()
	}
}
