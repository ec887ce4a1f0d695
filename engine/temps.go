package engine

import (
	"encoding/json"
	"path"

	"cairn/internal/vfs"
	"cairn/journal"
)

// Temp files are what an interrupted write leaves: dot files beside the
// file they were to replace, named by the one temp grammar of vfs
// (".<name>.<pid>-<16 hex>.cairn-tmp"). cairn removes a file only when its
// name has that exact shape and the process its pid names no longer needs
// it (vfs.TempLeftover): a person's ".config.tmpl" is never touched, and
// neither is the temp of a write in progress in another cairn process.
//
// Opening a session collects them:
//
//   - in the state folder: its top folder, the workspace's folder, its
//     sessions, objects and the session's outputs folder; one ReadDir each;
//   - in the user's workspace, where walking the tree would cost too much,
//     in the folders cairn can know it wrote in: every folder named by a
//     change line of a session whose owner died holding it (its owners/<id>
//     hint left behind, its lock free), the session being opened included;
//     and, in any case, the folders of the session's newest change, the one
//     a power loss can interrupt even when the hint is lost with it.
//
// A session's change lines name every file its tools, undo, redo and
// restores wrote, so its folders hold every temp those writes can leave,
// but one: a tool write stopped after staging its content and before its
// change line was written, in a folder no line of the session names. That
// temp stays (its name says what it is) until the folder is named.
//
// Temp files of earlier versions (".<name>.tmp<random>") cannot be told from
// a person's files and are left in place; `cairn storage fsck` notes those
// in the state folder.

// removeTemps collects the leftover temp files of the state folder and of
// the sessions of w whose owner died, ownerDied saying whether id's own
// owner did (its hint was there before this process took the lock).
func (w *Workspace) removeTemps(id string, ownerDied bool) {
	fsys := w.s.fsys
	for _, dir := range []string{".", w.dir, path.Join(w.dir, "sessions"), outputDir(w.dir, id), path.Join(w.dir, "objects")} {
		vfs.SweepTemps(fsys, dir) // best effort
	}
	if ownerDied {
		w.sweepWorkspace(changeDirs(fsys, changesName(w.dir, id)))
	}
	w.sweepDeadOwners(id)
}

// hintLeft reports whether session id's owners hint is there: taken before
// the lock, it says the last owner did not let go (or holds it still).
func (w *Workspace) hintLeft(id string) bool {
	_, err := w.s.fsys.Lstat(ownersName(w.dir, id))
	return err == nil
}

// sweepDeadOwners collects the workspace temp files of every other session
// whose owner died: its hint is there and its lock can be taken. This
// process owns it while its folders are swept, and lets go as an owner
// does, which removes the hint; a session owned by a live process (this one
// included) is skipped.
func (w *Workspace) sweepDeadOwners(self string) {
	fsys := w.s.fsys
	ents, err := fsys.ReadDir(path.Join(w.dir, "owners"))
	if err != nil {
		return
	}
	for _, e := range ents {
		id := e.Name()
		if id == self || !validSessionID(id) {
			continue
		}
		if _, err := fsys.Lstat(lockName(w.dir, id)); err != nil {
			continue // no such session (any more): nothing to own
		}
		l, err := w.acquire(id)
		if err != nil {
			continue // owned, or cannot tell
		}
		w.sweepWorkspace(changeDirs(fsys, changesName(w.dir, id)))
		w.release(id, l)
	}
}

// sweepToolTemps collects the leftover temp files beside files, the files
// of a session's newest change (loadChanges).
func (w *Workspace) sweepToolTemps(files []changeFile) {
	dirs := map[string]bool{}
	for _, f := range files {
		if validRel(f.Path) {
			dirs[path.Dir(f.Path)] = true
		}
	}
	w.sweepWorkspace(dirs)
}

// sweepWorkspace removes the leftover temp files in folders dirs of the
// user's workspace (best effort).
func (w *Workspace) sweepWorkspace(dirs map[string]bool) {
	if len(dirs) == 0 {
		return
	}
	fsys, done, err := w.files()
	if err != nil {
		return
	}
	defer done()
	for dir := range dirs {
		vfs.SweepTemps(fsys, dir)
	}
}

// changeDirs returns the folders named by the change lines of the changes
// journal name (every line, whatever the stack kept of it: an aborted or
// dropped change wrote its files too).
func changeDirs(fsys vfs.FS, name string) map[string]bool {
	dirs := map[string]bool{}
	journal.Read(fsys, name, func(b []byte) error {
		var l struct {
			Kind  string `json:"kind"`
			Files []struct {
				Path string `json:"path"`
			} `json:"files"`
		}
		if json.Unmarshal(b, &l) == nil && l.Kind == kindChange {
			for _, f := range l.Files {
				if validRel(f.Path) {
					dirs[path.Dir(f.Path)] = true
				}
			}
		}
		return nil
	})
	return dirs
}
