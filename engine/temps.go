package engine

import (
	"encoding/json"
	"os"
	"path"
	"strconv"
	"strings"

	"cairn/engine/internal/changes"

	"cairn/engine/internal/fstate"

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
// Opening a session collects them, and so does writing a new session's
// files for the first time (materialize):
//
//   - in the state folder: its top folder, the workspace's folder, its
//     sessions, objects and the session's outputs folder; one ReadDir each;
//   - in the user's workspace, where walking the tree would cost too much,
//     in the folders cairn can know it wrote in: those of a session whose
//     owner died holding it (its owners/<id> hint left behind, its lock
//     free), the session being opened included: every folder its change
//     lines name, and every folder its hint names; and, in any case, the
//     folders of the opened session's two newest changes, those a power
//     loss can interrupt even when the hint is lost with it.
//
// A session's change lines name every file its tools, undo, redo and
// restores wrote; its hint names the folders its tools staged in before
// their lines were written. Together they hold every temp a killed owner
// can leave. After a power loss the unsynced hint may be gone: a tool
// write stopped before its change line, in a folder no line names, then
// leaves a temp that stays (its name says what it is).
//
// Temp files of earlier versions (".<name>.tmp<random>") cannot be told from
// a person's files and are left in place; `cairn storage fsck` notes those
// in the state folder.

// removeTemps collects the leftover temp files of the state folder and of
// the sessions of w whose owner died. ownerDied says whether id's own owner
// did (its hint was there before this process took the lock), noted the
// folders that hint named.
func (w *Workspace) removeTemps(id string, ownerDied bool, noted map[string]bool) {
	fsys := w.s.fsys
	for _, dir := range []string{".", w.dir, path.Join(w.dir, "sessions"), outputDir(w.dir, id), path.Join(w.dir, "objects")} {
		vfs.SweepTemps(fsys, dir) // best effort
	}
	if ownerDied {
		w.sweepWorkspace(union(noted, changeDirs(fsys, changesName(w.dir, id))))
	}
	w.sweepDeadOwners(id)
}

// The owner's hint (owners/<id>, owner.go) holds the owner's pid, then the
// folders its file tools stage temp files in, each a JSON string on a line
// of its own, added before the first temp file goes there:
//
//	12345
//	"src"
//	"src/app"
//
// So the folder of a tool write killed before its change line was written
// is known too. The hint is not synced: after a power loss the change
// lines, and the two newest changes' folders, are what is left to go by.

// noteStaging adds the folder of rel to the session's hint before a file
// tool stages a temp file there, once per folder and owner. Best effort:
// without its hint (not owned yet, or a failed write) nothing is noted.
// The caller holds s.snaps.mu.
func (s *Session) noteStaging(rel string) {
	dir := path.Dir(rel)
	if s.noted[dir] {
		return
	}
	line, err := json.Marshal(fstate.Name(dir))
	if err != nil {
		return
	}
	h, err := s.ws.s.fsys.OpenFile(ownersName(s.ws.dir, s.st.id), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return
	}
	_, err = h.Write(append(line, '\n'))
	if h.Close() == nil && err == nil {
		if s.noted == nil {
			s.noted = map[string]bool{}
		}
		s.noted[dir] = true
	}
}

// readHint returns the folders session id's hint names, and whether it is
// there: read before the lock is taken, a hint says its owner did not let
// go (or holds the session still).
func (w *Workspace) readHint(id string) (map[string]bool, bool) {
	b, err := vfs.ReadFile(w.s.fsys, ownersName(w.dir, id))
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

// union adds the folders of b to a and returns it.
func union(a, b map[string]bool) map[string]bool {
	if a == nil {
		return b
	}
	for d := range b {
		a[d] = true
	}
	return a
}

// sweepDeadOwners collects the temp files of every other session whose
// owner died (its hint is there and its lock can be taken), in the
// workspace and in its outputs folder. This process owns the session while
// it sweeps, and lets go as an owner does, which removes the hint. A session
// owned by a live process (this one included) is skipped.
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
		if _, err := fsys.Lstat(lockName(w.dir, id)); vfs.IsNotExist(err) {
			// No such session (any more): an owner makes the lock file
			// before its hint, so the hint is stale.
			fsys.Remove(ownersName(w.dir, id))
			continue
		} else if err != nil {
			continue
		}
		noted, _ := w.readHint(id) // before acquire replaces it
		l, err := w.acquire(id)
		if err != nil {
			continue // owned, or cannot tell
		}
		vfs.SweepTemps(fsys, outputDir(w.dir, id))
		w.sweepWorkspace(union(noted, changeDirs(fsys, changesName(w.dir, id))))
		w.release(id, l)
	}
}

// sweepKilled collects, for a read that owns no session (show, transcript,
// trail, snapshots, shells, a listing), the temp files the file tools of a
// killed owner left in the workspace: in every folder its hint names (each
// noted before the first temp file went there) and in its outputs folder.
// A hint whose pid is alive is skipped. It takes no lock and leaves the
// hint: a temp file is removed only when the process its name holds is
// gone (vfs.TempLeftover), and the next owner of any session of the
// workspace still does the rest (removeTemps, sweepDeadOwners). Best effort,
// and a read that cannot write still reads.
func (w *Workspace) sweepKilled() {
	fsys := w.s.fsys
	ents, err := fsys.ReadDir(path.Join(w.dir, "owners"))
	if err != nil {
		return
	}
	var dirs map[string]bool
	for _, e := range ents {
		id := e.Name()
		if !validSessionID(id) {
			continue
		}
		b, err := vfs.ReadFile(fsys, ownersName(w.dir, id))
		if err != nil {
			continue
		}
		first, _, _ := strings.Cut(string(b), "\n")
		if pid, err := strconv.Atoi(first); err != nil || vfs.ProcessAlive(pid) {
			continue
		}
		noted, _ := w.readHint(id)
		vfs.SweepTemps(fsys, outputDir(w.dir, id))
		dirs = union(dirs, noted)
	}
	w.sweepWorkspace(dirs)
}

// sweepToolTemps collects the leftover temp files beside files, the files
// of a session's two newest changes (loadChanges).
func (w *Workspace) sweepToolTemps(files []changes.FileChange) {
	dirs := map[string]bool{}
	for _, f := range files {
		if fstate.ValidRel(f.Path) {
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
