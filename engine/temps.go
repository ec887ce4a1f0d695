package engine

import (
	"path"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/fstate"
	"cairn/engine/internal/owner"
	"cairn/internal/vfs"
)

// Temp files are what an interrupted write leaves (package owner says how
// one is told from a person's file and which folders are swept). Opening a
// session collects them, in the state folder and, in the user's
// workspace, in the folders a dead owner's hint and change lines name and
// those of the opened session's two newest changes; so does writing a new
// session's files for the first time (materialize).

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
		w.sweepWorkspace(owner.Union(noted, owner.ChangeDirs(fsys, changesName(w.dir, id))))
	}
	owner.SweepDeadOwners(fsys, w.dir, id, w.sweepWorkspace)
}

// removeUnmade collects what session creations stopped before their items
// journal got its name left in the sessions folder (owner.RemoveUnmade).
func (w *Workspace) removeUnmade() { owner.RemoveUnmade(w.s.fsys, w.dir) }

// noteStaging adds the folder of rel to the session's hint before a file
// tool stages a temp file there, once per folder and owner (best effort).
// The caller holds s.snaps.mu.
func (s *Session) noteStaging(rel string) {
	dir := path.Dir(rel)
	if s.noted[dir] || !owner.NoteStaging(s.ws.s.fsys, s.ws.dir, s.st.ID, dir) {
		return
	}
	if s.noted == nil {
		s.noted = map[string]bool{}
	}
	s.noted[dir] = true
}

// readHint returns the folders session id's hint names, and whether it is
// there (owner.ReadHint).
func (w *Workspace) readHint(id string) (map[string]bool, bool) {
	return owner.ReadHint(w.s.fsys, w.dir, id)
}

// sweepKilled collects, for a read that owns no session (show, transcript,
// trail, snapshots, shells, a listing), the temp files the file tools of a
// killed owner left (owner.SweepKilled). Best effort, and a read that
// cannot write still reads.
func (w *Workspace) sweepKilled() { w.sweepWorkspace(owner.SweepKilled(w.s.fsys, w.dir)) }

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
