package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"cairn/internal/vfs"
)

// Forget moves a session into the trash, a folder of the state folder:
//
//	trash/<id>/forgotten.json         {"v":1,"session":ID,"workspace":KEY,"path":DIR,"at":T}
//	trash/<id>/sessions/<id>.*        its journals and its record
//	trash/<id>/outputs/<id>/          its retained tool outputs
//	trash/.purge-<id>/                an entry prune is removing
//
// Part of the format. The note is written (and synced) first; the items
// journal moves next, and that rename is the forget: from then on the
// session is not in its workspace. The rest follows. A restore moves the
// rest back first and the items journal last, then removes the entry. So
// an entry whose items journal is in the trash is a forgotten session (any
// of its files still in the workspace are moved in), and one whose items
// journal is not is a forget or a restore that was cut short before or
// after its rename (anything it holds goes back, and the entry goes):
// settleTrash finishes either, and every forget, restore and prune runs it
// first. Prune purges entries forgotten at least TrashDays days ago. The
// session's objects stay in the workspace store while the trash holds the
// session (prune counts the trash's journals as references). The usage
// ledger is never touched.
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

// sessionFolders lists the per-session folders (outputs; attachments and
// sub-agent transcripts join here when they land).
func sessionFolders() []string { return []string{outputsFolder} }

func dirOf(wsDir, folder, id string) string { return path.Join(wsDir, folder, id) }
func trashEntry(id string) string           { return path.Join(trashDir, id) }

type trashInfo struct {
	V         int    `json:"v"`
	Session   string `json:"session"`
	Workspace string `json:"workspace"`
	Path      string `json:"path"`
	At        Time   `json:"at"`
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
	if err := moveDurable(fsys, itemsName(w.dir, id), path.Join(entry, sessionsDir, id+".items.jsonl")); err != nil {
		return fmt.Errorf("engine: forget %s: %w", id, err)
	}
	return w.moveRest(ctx, id, entry, true)
}

// moveRest moves session id's files other than its items journal into the
// trash entry (out) or back into the workspace (!out). Its lock file stays:
// prune removes a lock no session needs.
func (w *Workspace) moveRest(ctx context.Context, id, entry string, out bool) error {
	fsys := w.s.fsys
	wsSessions, trSessions := path.Join(w.dir, sessionsDir), path.Join(entry, sessionsDir)
	from, to := wsSessions, trSessions
	if !out {
		from, to = to, from
	}
	ents, err := fsys.ReadDir(from)
	if err != nil && !vfs.IsNotExist(err) {
		return err
	}
	moved := false
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
		if err := fsys.MkdirAll(to, vfs.DirPerm); err != nil {
			return err
		}
		if err := fsys.Rename(path.Join(from, name), path.Join(to, name)); err != nil {
			return err
		}
		moved = true
	}
	for _, folder := range sessionFolders() {
		src, dst := dirOf(w.dir, folder, id), path.Join(entry, folder, id)
		if !out {
			src, dst = dst, src
		}
		if _, err := fsys.Lstat(src); err != nil {
			continue
		}
		if err := fsys.MkdirAll(path.Dir(dst), vfs.DirPerm); err != nil {
			return err
		}
		if _, err := fsys.Lstat(dst); err == nil {
			if err := removeTree(ctx, fsys, dst); err != nil { // a copy left by an earlier cut-short move
				return err
			}
		}
		if err := fsys.Rename(src, dst); err != nil {
			return err
		}
		fsys.SyncDir(path.Dir(src))
		fsys.SyncDir(path.Dir(dst))
	}
	if moved {
		fsys.SyncDir(from)
		fsys.SyncDir(to)
	}
	if out {
		fsys.Remove(ownersName(w.dir, id))
	}
	return nil
}

// moveDurable renames from to to and syncs both folders.
func moveDurable(fsys vfs.FS, from, to string) error {
	if err := fsys.Rename(from, to); err != nil {
		return err
	}
	if err := fsys.SyncDir(path.Dir(to)); err != nil {
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
			if err := removeTree(ctx, fsys, path.Join(trashDir, name)); err != nil {
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
				removeTree(ctx, fsys, trashEntry(name))
			}
			continue // a damaged note: left for a person (fsck names it)
		}
		w := s.trashWorkspace(in)
		l, err := fsys.Lock(lockName(w.dir, name))
		if err != nil {
			continue
		}
		_, ierr := fsys.Lstat(path.Join(trashEntry(name), sessionsDir, name+".items.jsonl"))
		if ierr == nil {
			err = w.moveRest(ctx, name, trashEntry(name), true)
		} else if vfs.IsNotExist(ierr) {
			if err = w.moveRest(ctx, name, trashEntry(name), false); err == nil {
				err = removeTree(ctx, fsys, trashEntry(name))
			}
		}
		l.Release()
		if err != nil {
			return err
		}
	}
	return nil
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
		return Trashed{}, fmt.Errorf("%w: no forgotten session %q in the trash", ErrNotFound, ref)
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
		return Trashed{}, fmt.Errorf("%w: session %s is in its workspace already", ErrRefused, id)
	}
	if err := vfs.MkdirAllDurable(s.fsys, path.Join(w.dir, sessionsDir), vfs.DirPerm); err != nil {
		return Trashed{}, err
	}
	l, err := w.acquire(id)
	if err != nil {
		return Trashed{}, err
	}
	defer w.release(id, l)
	if err := w.moveRest(ctx, id, trashEntry(id), false); err != nil {
		return Trashed{}, fmt.Errorf("engine: restore %s: %w", id, err)
	}
	if err := moveDurable(s.fsys, path.Join(trashEntry(id), sessionsDir, id+".items.jsonl"), itemsName(w.dir, id)); err != nil {
		return Trashed{}, fmt.Errorf("engine: restore %s: %w", id, err)
	}
	if err := removeTree(ctx, s.fsys, trashEntry(id)); err != nil {
		return Trashed{}, err
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
		if err := moveDurable(s.fsys, trashEntry(t.Session), gone); err != nil {
			return n, err
		}
		if err := removeTree(ctx, s.fsys, gone); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// removeTree removes folder dir and everything in it, then syncs its
// parent. A missing folder is not an error.
func removeTree(ctx context.Context, fsys vfs.FS, dir string) error {
	ents, err := fsys.ReadDir(dir)
	if err != nil {
		if vfs.IsNotExist(err) {
			return nil
		}
		return err
	}
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return err
		}
		p := path.Join(dir, e.Name())
		if e.IsDir() {
			if err := removeTree(ctx, fsys, p); err != nil {
				return err
			}
			continue
		}
		if err := fsys.Remove(p); err != nil && !vfs.IsNotExist(err) {
			return err
		}
	}
	if err := fsys.Remove(dir); err != nil && !vfs.IsNotExist(err) {
		return err
	}
	return fsys.SyncDir(path.Dir(dir))
}

// fsckTrash names trash entries whose note cannot be read: a prune
// leaves them alone, for a person to look at.
func (s *Store) fsckTrash(bad reporter) {
	ents, _ := s.fsys.ReadDir(trashDir)
	for _, e := range ents {
		if !validSessionID(e.Name()) {
			continue
		}
		if _, err := s.readTrash(e.Name()); err != nil {
			bad(path.Join(trashEntry(e.Name()), trashNote), "unreadable trash note (prune and restore leave this entry alone): %v", err)
		}
	}
}
