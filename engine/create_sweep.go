package engine

import (
	"path"
	"strings"

	"cairn/internal/vfs"
)

// removeUnmade collects what session creations stopped before their items
// journal got its name (a kill, a power loss) left in the sessions folder:
// the temp files of a session that does not exist. A creation holds the
// new session's lock from before its first temp file until its items
// journal is in place, so a temp file whose session's lock is free and
// whose session does not exist is a leftover; the lock file goes with it.
// A creation stopped after it took the lock and before its first temp file
// leaves the lock file alone: a free lock of a session that does not exist
// is collected the same way.
func (w *Workspace) removeUnmade() {
	fsys := w.s.fsys
	dir := path.Join(w.dir, "sessions")
	ents, err := fsys.ReadDir(dir)
	if err != nil {
		return
	}
	temps := map[string][]string{}
	names := make(map[string]bool, len(ents))
	for _, e := range ents {
		names[e.Name()] = true
	}
	for _, e := range ents {
		name := e.Name()
		if id, ok := strings.CutSuffix(name, ".lock"); ok && e.Type().IsRegular() && validSessionID(id) {
			if _, seen := temps[id]; !seen {
				temps[id] = nil
			}
			continue
		}
		// "." + id + "." + the name it was to take + the temp suffix
		if !e.Type().IsRegular() || !vfs.IsTemp(name) || len(name) < 38 || name[37] != '.' {
			continue
		}
		if id := name[1:37]; validSessionID(id) {
			temps[id] = append(temps[id], name)
		}
	}
	for id, leftover := range temps {
		if names[id+".items.jsonl"] {
			continue // the session exists: its own open collects them
		}
		l, err := fsys.Lock(lockName(w.dir, id))
		if err != nil {
			continue // its creation is under way
		}
		if _, err := fsys.Lstat(itemsName(w.dir, id)); vfs.IsNotExist(err) {
			for _, n := range leftover {
				fsys.Remove(path.Join(dir, n))
			}
			l.Release()
			fsys.Remove(lockName(w.dir, id))
			fsys.Remove(ownersName(w.dir, id))
			continue
		}
		l.Release()
	}
}
