package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"cairn/internal/vfs"
)

// Forget moves a session into the trash, a folder of the state folder:
//
//	trash/<id>/forgotten.json         {"v":1,"session":ID,"workspace":KEY,"path":DIR,"at":T,"restoring":true|absent}
//	trash/<id>/sessions/<id>.*        its journals and its record
//	trash/<id>/outputs/<id>/          its retained tool outputs
//	trash/<id>/tasks/<id>/            its sub-agent transcripts
//	trash/<id>/hooks/<id>/            its hooks' pending markers
//	trash/.purge-<id>/                an entry prune is removing
//
// Part of the format. A file moves by a durable copy into its new folder,
// then the removal of the old one (moveFile): a rename between two
// folders is not one durable step, and a crash must never leave a file in
// neither. The note is written first; the items journal moves next, and
// its arrival in the trash is the forget. The rest follows. A restore
// marks the note "restoring", moves the rest back, then the items journal,
// then removes the entry.
//
// settleTrash finishes whatever a crash cut short, from where the items
// journal is: in the trash only, the session is forgotten (the rest is
// moved in) unless the note says restoring (the restore is finished); in
// the workspace only, the forget never happened (anything moved goes back,
// the entry goes); in both, the trash's copy wins for a forget whose copy
// is whole and the same size, and the workspace's for a restore or when
// the workspace's copy grew since (someone wrote to the session). Two
// journals neither of which begins with the other are no copies of each
// other: the workspace's is a session made again under the same id (an agent's hooks, an
// import): both stay, a restore is refused and a forget skips it until
// prune purges the trash's. Every
// forget, restore and prune settles first. Prune purges entries forgotten
// at least TrashDays days ago. The session's objects stay in the
// workspace store while the trash holds the session (prune counts the
// trash's journals as references). The usage ledger is never touched.
//
// sessionFolders are the workspace folders that hold a folder per session
// (<folder>/<id>/): trim and forget take these with the session. Files of
// the sessions folder named <id>.<anything> go with a forget too.

const (
	trashDir    = "trash"
	trashNote   = "forgotten.json"
	purgePrefix = ".purge-"
	sessionsDir = "sessions"
	// TrashDays is how many days a forgotten session stays restorable, and
	// how old an orphan or an unreferenced object must be for prune.
	TrashDays  = 7
	trashGrace = TrashDays * 24 * time.Hour
)

// sessionFolders lists the per-session folders a trim drops: retained tool
// outputs. forgetFolders lists every per-session folder, which a forget
// moves to the trash and a restore brings back: sub-agent transcripts
// (tasks/<id>/) too, which a trimmed session keeps (seed "Retention": a
// transcript session keeps its subagent transcripts), and the pending
// markers of an agent's hooks (hooks/<id>/, hook.go), so a restored
// session's post-tool hooks still find them.
func sessionFolders() []string { return []string{outputsFolder} }
func forgetFolders() []string  { return []string{outputsFolder, tasksFolder, hooksFolder} }

func dirOf(wsDir, folder, id string) string { return path.Join(wsDir, folder, id) }
func trashEntry(id string) string           { return path.Join(trashDir, id) }

type trashInfo struct {
	V         int    `json:"v"`
	Session   string `json:"session"`
	Workspace string `json:"workspace"`
	Path      string `json:"path"`
	At        Time   `json:"at"`
	Restoring bool   `json:"restoring,omitempty"`
}

// Trashed is a forgotten session the trash still holds.
type Trashed struct {
	Session   string
	Directory string
	At        time.Time // when it was forgotten
}

// forgetSession moves session id into the trash; the caller holds its lock.
func (w *Workspace) forgetSession(ctx context.Context, id string) error {
	fsys := w.s.fsys
	entry := trashEntry(id)
	if err := vfs.MkdirAllDurable(fsys, path.Join(entry, sessionsDir), vfs.DirPerm); err != nil {
		return fmt.Errorf("engine: forget %s: %w", id, err)
	}
	note, _ := json.Marshal(trashInfo{V: 1, Session: id, Workspace: w.key, Path: w.path, At: mkTime(w.s.Now())})
	if err := vfs.WriteFileAtomic(fsys, path.Join(entry, trashNote), append(note, '\n')); err != nil {
		return fmt.Errorf("engine: forget %s: %w", id, err)
	}
	if err := moveFile(fsys, itemsName(w.dir, id), path.Join(entry, sessionsDir, id+".items.jsonl")); err != nil {
		return fmt.Errorf("engine: forget %s: %w", id, err)
	}
	return w.moveRest(ctx, id, entry, true)
}

// moveRest moves session id's files other than its items journal into the
// trash entry (out) or back into the workspace (!out). Its lock file stays:
// prune removes a lock no session needs.
func (w *Workspace) moveRest(ctx context.Context, id, entry string, out bool) error {
	fsys := w.s.fsys
	from, to := path.Join(w.dir, sessionsDir), path.Join(entry, sessionsDir)
	if !out {
		from, to = to, from
	}
	ents, err := fsys.ReadDir(from)
	if err != nil && !vfs.IsNotExist(err) {
		return err
	}
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, id+".") || name == id+".items.jsonl" || name == id+".lock" {
			if out && strings.HasPrefix(name, "."+id+".") && vfs.IsTemp(name) {
				fsys.Remove(path.Join(from, name)) // a dead write's temp file
			}
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := moveFile(fsys, path.Join(from, name), path.Join(to, name)); err != nil {
			return err
		}
	}
	for _, folder := range forgetFolders() {
		src, dst := dirOf(w.dir, folder, id), path.Join(entry, folder, id)
		if !out {
			src, dst = dst, src
		}
		files, err := fsys.ReadDir(src)
		if vfs.IsNotExist(err) {
			continue
		}
		if err != nil {
			return err
		}
		for _, f := range files {
			if err := ctx.Err(); err != nil {
				return err
			}
			if !f.Type().IsRegular() || vfs.IsTemp(f.Name()) {
				fsys.Remove(path.Join(src, f.Name()))
				continue
			}
			if err := moveFile(fsys, path.Join(src, f.Name()), path.Join(dst, f.Name())); err != nil {
				return err
			}
		}
		if err := removeFolder(ctx, fsys, src); err != nil {
			return err
		}
	}
	if out {
		fsys.Remove(ownersName(w.dir, id))
	}
	return nil
}

// moveFile moves file from to to so that a crash leaves it in one place
// or both, never neither: a durable copy at to (when to is not there
// yet), then from removed and its folder synced. Run again after a crash,
// it finishes. A missing from is not an error.
func moveFile(fsys vfs.FS, from, to string) error {
	if _, err := fsys.Lstat(from); vfs.IsNotExist(err) {
		return nil
	}
	if _, err := fsys.Lstat(to); vfs.IsNotExist(err) {
		if err := vfs.MkdirAllDurable(fsys, path.Dir(to), vfs.DirPerm); err != nil {
			return err
		}
		f, err := fsys.OpenFile(from, os.O_RDONLY, 0)
		if err != nil {
			return err
		}
		err = vfs.WriteAtomic(fsys, to, func(w io.Writer) error { _, err := io.Copy(w, f); return err })
		f.Close()
		if err != nil {
			return err
		}
	}
	if err := fsys.Remove(from); err != nil && !vfs.IsNotExist(err) {
		return err
	}
	return fsys.SyncDir(path.Dir(from))
}

// readTrash reads the note of trash entry id.
func (s *Store) readTrash(id string) (*trashInfo, error) {
	b, err := vfs.ReadFile(s.fsys, path.Join(trashEntry(id), trashNote))
	if err != nil {
		return nil, err
	}
	var in trashInfo
	if err := json.Unmarshal(b, &in); err != nil || in.V != 1 || in.Session != id || !validSessionID(id) {
		return nil, fmt.Errorf("engine: %s: not a trash note", path.Join(trashEntry(id), trashNote))
	}
	return &in, nil
}

// trashWorkspace is the workspace a trash entry came from.
func (s *Store) trashWorkspace(in *trashInfo) *Workspace {
	return &Workspace{s: s, path: in.Path, key: in.Workspace, dir: workspaceDir(in.Workspace), made: true}
}

// SettleTrash finishes every forget and restore a crash cut short (see
// above). Forget, restore, prune and the sweep run it first; until then a
// session whose move was cut short may show both in its workspace and in
// the trash, never in neither.
func (s *Store) SettleTrash(ctx context.Context) error { return s.settleTrash(ctx) }

// settleTrash finishes every forget and restore that was cut short, and
// every purge. An entry whose session's lock is held (a forget or restore
// at work in another process) is left alone.
func (s *Store) settleTrash(ctx context.Context) error {
	fsys := s.fsys
	ents, err := fsys.ReadDir(trashDir)
	if vfs.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return err
		}
		name := e.Name()
		if strings.HasPrefix(name, purgePrefix) {
			if err := removeFolder(ctx, fsys, path.Join(trashDir, name)); err != nil {
				return err
			}
			continue
		}
		if !validSessionID(name) || !e.IsDir() {
			continue
		}
		in, err := s.readTrash(name)
		if err != nil {
			if _, serr := fsys.Lstat(path.Join(trashEntry(name), sessionsDir, name+".items.jsonl")); vfs.IsNotExist(serr) && vfs.IsNotExist(err) {
				// A forget cut short before its note: nothing moved yet.
				removeFolder(ctx, fsys, trashEntry(name))
			}
			continue // a damaged note: left for a person (fsck names it)
		}
		w := s.trashWorkspace(in)
		l, err := fsys.Lock(lockName(w.dir, name))
		if err != nil {
			continue
		}
		err = w.settleEntry(ctx, in)
		l.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// settleEntry finishes trash entry in's forget or restore (see above);
// the caller holds the session's lock.
func (w *Workspace) settleEntry(ctx context.Context, in *trashInfo) error {
	fsys := w.s.fsys
	id, entry := in.Session, trashEntry(in.Session)
	tname, wname := path.Join(entry, sessionsDir, id+".items.jsonl"), itemsName(w.dir, id)
	tfi, terr := fsys.Lstat(tname)
	wfi, werr := fsys.Lstat(wname)
	inT, inW := terr == nil, werr == nil
	var keepWS bool
	switch {
	case inT && inW:
		same, err := journalPrefix(fsys, tname, wname, min(tfi.Size(), wfi.Size()))
		if err != nil {
			return err
		}
		if !same {
			// Not a move cut short: a session of the same id was made
			// again after the forget (an agent's hooks, an import). Each
			// copy is its own: the trash keeps its entry, restorable once
			// the other is out of the way (Restore refuses until then).
			return nil
		}
		keepWS = in.Restoring || wfi.Size() != tfi.Size()
	case inT:
		keepWS = in.Restoring
	case inW:
		keepWS = true
	default:
		return nil // neither: damaged, left for fsck and a person
	}
	if !keepWS {
		if inW {
			if err := fsys.Remove(wname); err != nil {
				return err
			}
			fsys.SyncDir(path.Dir(wname))
		}
		return w.moveRest(ctx, id, entry, true)
	}
	if err := w.moveRest(ctx, id, entry, false); err != nil {
		return err
	}
	if inT && !inW {
		if err := moveFile(fsys, tname, wname); err != nil {
			return err
		}
	}
	return removeFolder(ctx, fsys, entry)
}

// journalPrefix reports whether the trash's items journal tname and the
// workspace's wname hold the same first n bytes (n: the shorter's size):
// one begins with the other, as after a forget or a restore cut short (one
// is a copy of the other; the workspace's may have grown since, or lost an
// unsynced tail to a power loss), and as a session made again under the
// same id does not.
func journalPrefix(fsys vfs.FS, tname, wname string, n int64) (bool, error) {
	t, err := fsys.OpenFile(tname, os.O_RDONLY, 0)
	if err != nil {
		return false, err
	}
	defer t.Close()
	w, err := fsys.OpenFile(wname, os.O_RDONLY, 0)
	if err != nil {
		return false, err
	}
	defer w.Close()
	bt, bw := make([]byte, 32<<10), make([]byte, 32<<10)
	for n > 0 {
		k := int(min(n, int64(len(bt))))
		if _, err := io.ReadFull(t, bt[:k]); err != nil {
			return false, err
		}
		if _, err := io.ReadFull(w, bw[:k]); err != nil {
			return false, err
		}
		if !bytes.Equal(bt[:k], bw[:k]) {
			return false, nil
		}
		n -= int64(k)
	}
	return true, nil
}

// TrashList lists the forgotten sessions the trash holds, newest first.
func (s *Store) TrashList(ctx context.Context) ([]Trashed, error) {
	ents, err := s.fsys.ReadDir(trashDir)
	if vfs.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Trashed
	for _, e := range ents {
		if !validSessionID(e.Name()) {
			continue
		}
		in, err := s.readTrash(e.Name())
		if err != nil {
			continue
		}
		if _, err := s.fsys.Lstat(path.Join(trashEntry(in.Session), sessionsDir, in.Session+".items.jsonl")); err != nil {
			continue
		}
		out = append(out, Trashed{Session: in.Session, Directory: in.Path, At: in.At.Time})
	}
	slices.SortFunc(out, func(a, b Trashed) int { return b.At.Compare(a.At) })
	return out, nil
}

// Restore brings a forgotten session back from the trash into its
// workspace. ref is its id or a unique prefix of it.
func (s *Store) Restore(ctx context.Context, ref string) (Trashed, error) {
	if err := s.settleTrash(ctx); err != nil {
		return Trashed{}, err
	}
	list, err := s.TrashList(ctx)
	if err != nil {
		return Trashed{}, err
	}
	var match []Trashed
	for _, t := range list {
		if t.Session == ref || (ref != "" && strings.HasPrefix(t.Session, ref)) {
			match = append(match, t)
		}
	}
	switch {
	case ref == "":
		return Trashed{}, fmt.Errorf("%w: empty session reference", ErrBadInput)
	case len(match) == 0:
		return Trashed{}, notFoundf("no forgotten session %q in the trash", ref)
	case len(match) > 1:
		return Trashed{}, fmt.Errorf("%w: %q matches %d forgotten sessions", ErrAmbiguous, ref, len(match))
	}
	id := match[0].Session
	in, err := s.readTrash(id)
	if err != nil {
		return Trashed{}, err
	}
	w := s.trashWorkspace(in)
	if _, err := s.fsys.Lstat(itemsName(w.dir, id)); err == nil {
		return Trashed{}, refusedf("a session %s is in its workspace again, made after the forget (by an agent's hooks or an import); the trash keeps the forgotten one until it is purged", id)
	}
	if err := vfs.MkdirAllDurable(s.fsys, path.Join(w.dir, sessionsDir), vfs.DirPerm); err != nil {
		return Trashed{}, err
	}
	l, err := w.acquire(id)
	if err != nil {
		return Trashed{}, err
	}
	defer w.release(id, l)
	in.Restoring = true
	note, _ := json.Marshal(in)
	if err := vfs.WriteFileAtomic(s.fsys, path.Join(trashEntry(id), trashNote), append(note, '\n')); err != nil {
		return Trashed{}, fmt.Errorf("engine: restore %s: %w", id, err)
	}
	if err := w.settleEntry(ctx, in); err != nil {
		return Trashed{}, fmt.Errorf("engine: restore %s: %w", id, err)
	}
	w.rebuildRecord(ctx, id)
	return match[0], nil
}

// purgeTrash removes the entries forgotten at least TrashDays days ago:
// renamed to a .purge- name first, so a purge cut short is never taken
// for a restore.
func (s *Store) purgeTrash(ctx context.Context, now time.Time) (int, error) {
	list, err := s.TrashList(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, t := range list {
		if now.Sub(t.At) < trashGrace {
			continue
		}
		gone := path.Join(trashDir, purgePrefix+t.Session)
		if err := s.fsys.Rename(trashEntry(t.Session), gone); err != nil {
			return n, err
		}
		if err := s.fsys.SyncDir(trashDir); err != nil {
			return n, err
		}
		if err := removeFolder(ctx, s.fsys, gone); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// fsckTrash names trash entries whose note cannot be read while they
// hold a session (prune and restore leave them alone, for a person to
// look at); an entry without a note or a session is a forget cut short,
// which the next forget, restore or prune removes.
func (s *Store) fsckTrash(bad, note reporter) {
	ents, _ := s.fsys.ReadDir(trashDir)
	for _, e := range ents {
		if !validSessionID(e.Name()) {
			continue
		}
		name := path.Join(trashEntry(e.Name()), trashNote)
		if _, err := s.readTrash(e.Name()); err != nil {
			if _, serr := s.fsys.Lstat(path.Join(trashEntry(e.Name()), sessionsDir, e.Name()+".items.jsonl")); serr == nil {
				bad(name, "unreadable trash note (prune and restore leave this entry alone): %v", err)
			} else {
				note(name, "a forget cut short before it began: removed by the next forget, restore or prune")
			}
		}
	}
}
