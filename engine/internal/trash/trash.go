package trash

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

	"cairn/engine/internal/durable"
	"cairn/engine/internal/layout"
	"cairn/internal/timefmt"
	"cairn/internal/vfs"
)

// Names in the trash. Part of the format.
const (
	NoteName    = "forgotten.json"
	PurgePrefix = ".purge-"
)

// Note is an entry's forgotten.json. Part of the format.
type Note struct {
	V         int          `json:"v"`
	Session   string       `json:"session"`
	Workspace string       `json:"workspace"`
	Path      string       `json:"path"`
	At        timefmt.Time `json:"at"`
	Restoring bool         `json:"restoring,omitempty"`
}

// TrimFolders lists the per-session folders a trim drops: retained tool
// outputs. ForgetFolders lists every per-session folder, which a forget
// moves to the trash and a restore brings back: sub-agent transcripts
// (tasks/<id>/) too, which a trimmed session keeps (a transcript session
// keeps its subagent transcripts), and the pending markers of an agent's
// hooks (hooks/<id>/), so a restored session's post-tool hooks still find
// them.
func TrimFolders() []string   { return []string{layout.Outputs} }
func ForgetFolders() []string { return []string{layout.Outputs, layout.Tasks, layout.Hooks} }

// Entry is the trash entry of session id; NotePath its note; Items the
// items journal it holds.
func Entry(id string) string    { return layout.TrashEntry(id) }
func NotePath(id string) string { return path.Join(Entry(id), NoteName) }
func Items(id string) string    { return layout.Items(Entry(id), id) }

// ReadNote reads the note of entry id.
func ReadNote(fsys vfs.FS, id string) (*Note, error) {
	b, err := vfs.ReadFile(fsys, NotePath(id))
	if err != nil {
		return nil, err
	}
	var in Note
	if err := json.Unmarshal(b, &in); err != nil || in.V != 1 || in.Session != id || !layout.ValidSessionID(id) {
		return nil, fmt.Errorf("engine: %s: not a trash note", NotePath(id))
	}
	return &in, nil
}

// MoveRest moves session id's files other than its items journal from
// workspace folder ws into the trash entry (out) or back (!out). Its lock
// file stays: prune removes a lock no session needs.
func MoveRest(ctx context.Context, fsys vfs.FS, ws, id string, out bool) error {
	entry := Entry(id)
	from, to := layout.SessionsDir(ws), layout.SessionsDir(entry)
	if !out {
		from, to = to, from
	}
	ents, err := fsys.ReadDir(from)
	if err != nil && !vfs.IsNotExist(err) {
		return err
	}
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, id+".") || name == id+layout.ItemsSuffix || name == id+layout.LockSuffix {
			if out && strings.HasPrefix(name, "."+id+".") && vfs.IsTemp(name) {
				fsys.Remove(path.Join(from, name)) // a dead write's temp file
			}
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := durable.MoveFile(fsys, path.Join(from, name), path.Join(to, name)); err != nil {
			return err
		}
	}
	for _, folder := range ForgetFolders() {
		src, dst := layout.SessionFolder(ws, folder, id), layout.SessionFolder(entry, folder, id)
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
			if err := durable.MoveFile(fsys, path.Join(src, f.Name()), path.Join(dst, f.Name())); err != nil {
				return err
			}
		}
		if err := durable.RemoveFolder(ctx, fsys, src); err != nil {
			return err
		}
	}
	if out {
		fsys.Remove(layout.Owner(ws, id))
	}
	return nil
}

// Settle finishes what a build before the plans left of entry in's forget
// or restore (see the package doc); ws is the workspace folder it came
// from, and purge removes the entry. The caller holds the session's lock.
func Settle(ctx context.Context, fsys vfs.FS, ws string, in *Note, purge func(context.Context, string) error) error {
	id, entry := in.Session, Entry(in.Session)
	tname, wname := Items(id), layout.Items(ws, id)
	tfi, terr := fsys.Lstat(tname)
	wfi, werr := fsys.Lstat(wname)
	inT, inW := terr == nil, werr == nil
	switch {
	case inT && inW:
		// The workspace's session is live, whatever the trash holds: a
		// session made again under the id, or a forget cut short before
		// the workspace's copy went. Only a restore whose copy arrived
		// whole is finished.
		if !in.Restoring || wfi.Size() != tfi.Size() {
			return nil
		}
		same, err := JournalPrefix(fsys, tname, wname, wfi.Size())
		if err != nil || !same {
			return err
		}
		return purge(ctx, id)
	case inT:
		if !in.Restoring {
			return MoveRest(ctx, fsys, ws, id, true)
		}
		if err := MoveRest(ctx, fsys, ws, id, false); err != nil {
			return err
		}
		if err := durable.MoveFile(fsys, tname, wname); err != nil {
			return err
		}
		return durable.RemoveFolder(ctx, fsys, entry)
	case inW:
		if err := MoveRest(ctx, fsys, ws, id, false); err != nil {
			return err
		}
		return durable.RemoveFolder(ctx, fsys, entry)
	}
	return nil // neither: damaged, left for fsck and a person
}

// JournalPrefix reports whether the trash's items journal tname and the
// workspace's wname hold the same first n bytes (n: the shorter's size):
// one begins with the other, as after a forget or a restore cut short (one
// is a copy of the other; the workspace's may have grown since, or lost an
// unsynced tail to a power loss), and as a session made again under the
// same id does not.
func JournalPrefix(fsys vfs.FS, tname, wname string, n int64) (bool, error) {
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

// LeftIn names the files of session id that workspace folder ws still
// holds without its items journal (its lock and owner hint aside).
func LeftIn(fsys vfs.FS, ws, id string) []string {
	var left []string
	names, _ := vfs.ReadDirNames(fsys, layout.SessionsDir(ws))
	for _, n := range names {
		if strings.HasPrefix(n, id+".") && n != id+layout.LockSuffix && !vfs.IsTemp(n) {
			left = append(left, path.Join(layout.Sessions, n))
		}
	}
	for _, folder := range ForgetFolders() {
		names, _ := vfs.ReadDirNames(fsys, layout.SessionFolder(ws, folder, id))
		if slices.ContainsFunc(names, func(n string) bool { return !vfs.IsTemp(n) }) {
			left = append(left, path.Join(folder, id)+"/")
		}
	}
	return left
}
