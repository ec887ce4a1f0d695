package owner

import (
	"encoding/json"
	"os"
	"path"
	"strconv"
	"strings"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/fstate"
	"cairn/engine/internal/layout"
	"cairn/internal/vfs"
	"cairn/journal"
)

// NoteStaging adds folder dir to session id's hint before a file tool
// stages a temp file there, and reports whether it did. Best effort:
// without its hint (not owned yet, or a failed write) nothing is noted.
func NoteStaging(fsys vfs.FS, ws, id, dir string) bool {
	line, err := json.Marshal(fstate.Name(dir))
	if err != nil {
		return false
	}
	h, err := fsys.OpenFile(Hint(ws, id), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return false
	}
	_, err = h.Write(append(line, '\n'))
	return h.Close() == nil && err == nil
}

// ReadHint returns the folders session id's hint names, and whether it is
// there: read before the lock is taken, a hint says its owner did not let
// go (or holds the session still).
func ReadHint(fsys vfs.FS, ws, id string) (map[string]bool, bool) {
	b, err := vfs.ReadFile(fsys, Hint(ws, id))
	if err != nil {
		return nil, false
	}
	dirs := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		var n fstate.Name
		if json.Unmarshal([]byte(l), &n) == nil {
			if dir := string(n); dir == "." || fstate.ValidRel(dir) {
				dirs[dir] = true
			}
		}
	}
	return dirs, true
}

// Union adds the folders of b to a and returns it.
func Union(a, b map[string]bool) map[string]bool {
	if a == nil {
		return b
	}
	for d := range b {
		a[d] = true
	}
	return a
}

// SweepDeadOwners collects the temp files of every session of ws but self
// whose owner died (its hint is there and its lock can be taken): in its
// outputs folder here, and in the user's workspace through sweep, in the
// folders its hint and its change lines name. It owns each such session
// while it sweeps, and lets go as an owner does, which removes the hint. A
// session owned by a live process (this one included) is skipped.
func SweepDeadOwners(fsys vfs.FS, ws, self string, sweep func(dirs map[string]bool)) {
	ents, err := fsys.ReadDir(path.Join(ws, layout.Owners))
	if err != nil {
		return
	}
	for _, e := range ents {
		id := e.Name()
		if id == self || !layout.ValidSessionID(id) {
			continue
		}
		if _, err := fsys.Lstat(layout.Lock(ws, id)); vfs.IsNotExist(err) {
			// No such session (any more): an owner makes the lock file
			// before its hint, so the hint is stale.
			fsys.Remove(Hint(ws, id))
			continue
		} else if err != nil {
			continue
		}
		noted, _ := ReadHint(fsys, ws, id) // before Acquire replaces it
		l, err := Acquire(fsys, ws, id, false)
		if err != nil {
			continue // owned, or cannot tell
		}
		vfs.SweepTemps(fsys, layout.SessionFolder(ws, layout.Outputs, id))
		sweep(Union(noted, ChangeDirs(fsys, layout.Changes(ws, id))))
		Release(fsys, ws, id, l)
	}
}

// SweepKilled collects, for a read that owns no session, the temp files in
// the outputs folders of the sessions of ws whose owner was killed (a hint
// whose pid is gone), and returns the folders of the user's workspace
// their hints name, for the caller to sweep. It takes no lock and leaves
// the hints: a temp file is removed only when the process its name holds
// is gone, and the next owner of any session of the workspace still does
// the rest. Best effort.
func SweepKilled(fsys vfs.FS, ws string) map[string]bool {
	ents, err := fsys.ReadDir(path.Join(ws, layout.Owners))
	if err != nil {
		return nil
	}
	var dirs map[string]bool
	for _, e := range ents {
		id := e.Name()
		if !layout.ValidSessionID(id) {
			continue
		}
		b, err := vfs.ReadFile(fsys, Hint(ws, id))
		if err != nil {
			continue
		}
		first, _, _ := strings.Cut(string(b), "\n")
		if pid, err := strconv.Atoi(first); err != nil || vfs.ProcessAlive(pid) {
			continue
		}
		noted, _ := ReadHint(fsys, ws, id)
		vfs.SweepTemps(fsys, layout.SessionFolder(ws, layout.Outputs, id))
		dirs = Union(dirs, noted)
	}
	return dirs
}

// ChangeDirs returns the folders named by the change lines of the changes
// journal name (every line, whatever the stack kept of it: an aborted or
// dropped change wrote its files too).
func ChangeDirs(fsys vfs.FS, name string) map[string]bool {
	dirs := map[string]bool{}
	journal.Read(fsys, name, func(b []byte) error {
		var l struct {
			Kind  string `json:"kind"`
			Files []struct {
				Path fstate.Name `json:"path"`
			} `json:"files"`
		}
		if json.Unmarshal(b, &l) == nil && l.Kind == changes.KindChange {
			for _, f := range l.Files {
				if p := string(f.Path); fstate.ValidRel(p) {
					dirs[path.Dir(p)] = true
				}
			}
		}
		return nil
	})
	return dirs
}

// RemoveUnmade collects what session creations stopped before their items
// journal got its name (a kill, a power loss) left in the sessions folder
// of ws: the temp files of a session that does not exist. A creation holds
// the new session's lock from before its first temp file until its items
// journal is in place, so a temp file whose session's lock is free and
// whose session does not exist is a leftover; the lock file goes with it.
// A creation stopped after it took the lock and before its first temp file
// leaves the lock file alone: a free lock of a session that does not exist
// is collected the same way.
func RemoveUnmade(fsys vfs.FS, ws string) {
	dir := layout.SessionsDir(ws)
	// Names alone: this runs at every session open, and a folder of many
	// sessions would cost an Lstat of each entry. Only the few names the
	// rules below pick are looked at further.
	list, err := vfs.ReadDirNames(fsys, dir)
	if err != nil {
		return
	}
	temps := map[string][]string{}
	names := make(map[string]bool, len(list))
	for _, name := range list {
		names[name] = true
	}
	for _, name := range list {
		if id, ok := strings.CutSuffix(name, layout.LockSuffix); ok && layout.ValidSessionID(id) {
			if _, seen := temps[id]; !seen {
				temps[id] = nil
			}
			continue
		}
		// "." + id + "." + the name it was to take + the temp suffix
		if !vfs.IsTemp(name) || len(name) < 38 || name[37] != '.' {
			continue
		}
		if id := name[1:37]; layout.ValidSessionID(id) {
			temps[id] = append(temps[id], name)
		}
	}
	regular := func(name string) bool {
		fi, err := fsys.Lstat(path.Join(dir, name))
		return err == nil && fi.Mode().IsRegular()
	}
	for id, leftover := range temps {
		if names[id+layout.ItemsSuffix] {
			continue // the session exists: its own open collects them
		}
		if leftover == nil && !regular(id+layout.LockSuffix) {
			continue // a lock name that is no lock file: not ours
		}
		l, err := fsys.Lock(layout.Lock(ws, id))
		if err != nil {
			continue // its creation is under way
		}
		if _, err := fsys.Lstat(layout.Items(ws, id)); vfs.IsNotExist(err) {
			for _, n := range leftover {
				if regular(n) {
					fsys.Remove(path.Join(dir, n))
				}
			}
			l.Release()
			fsys.Remove(layout.Lock(ws, id))
			fsys.Remove(Hint(ws, id))
			continue
		}
		l.Release()
	}
}
