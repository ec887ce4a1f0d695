// Package listing finds what a listing of the state folder shows before
// any session is read: the workspace folders and the path each belongs to
// (Folders), the sessions a folder holds by their journals (SessionsIn),
// the sessions of a picker index dated in the future (FutureIDs,
// FutureLast), and which sessions have a live owner without taking their
// locks (Hinted, LiveOwner), a folder's listing checked against its
// journals (Checked), the picker's order (Sort) and a session reference
// looked up in a listing (Match). It reads only; the engine's Store.Workspaces,
// Workspace.List and Workspace.ListHead build on it.
package listing

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"cairn/engine/internal/errs"
	"cairn/engine/internal/layout"
	"cairn/engine/internal/owner"
	"cairn/engine/wskey"
	"cairn/index"
	"cairn/internal/vfs"
)

// Folder is a workspace folder that belongs to the path it names.
type Folder struct {
	Key  string // the folder's name under workspaces/
	Dir  string // the folder, relative to the state folder
	Path string // the working directory it belongs to
}

// Problem is a workspace folder Folders passed over, and why.
type Problem struct {
	Name     string   // the folder, relative to the state folder: workspaces/<key>
	Err      error    // why it was passed over
	Sessions []string // the ids of the sessions it holds, which no listing shows
}

// Folders lists every workspace folder of the state folder fsys that
// belongs to the path it names, checked as the command line finds a folder
// for a directory: wskey.Verify, and the path, when it exists, must still
// be canonical (no directory leads to a folder through a path that is now a
// link). A folder that fails (a workspace.json that is damaged or names a
// path whose folder is another one) comes back as a problem, its sessions
// named and its files untouched.
func Folders(fsys vfs.FS) ([]Folder, []Problem, error) {
	ents, err := fsys.ReadDir(layout.Workspaces)
	if vfs.IsNotExist(err) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var out []Folder
	var problems []Problem
	for _, e := range ents {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") { // a key never starts with a dot
			continue
		}
		dir := layout.WorkspaceDir(e.Name())
		p, err := wskey.Verify(fsys, layout.Workspaces, e.Name())
		if err == nil {
			err = StillCanonical(dir, p)
		}
		if err != nil {
			problems = append(problems, Problem{Name: dir, Err: err, Sessions: SessionsIn(fsys, dir)})
			continue
		}
		out = append(out, Folder{Key: e.Name(), Dir: dir, Path: p})
	}
	return out, problems, nil
}

// StillCanonical refuses a workspace path that now resolves elsewhere (one
// of its folders replaced by a link): the command line, which resolves links
// first, would use another folder for that directory. A path that is gone
// passes: its sessions can be listed, and nothing can be restored into it.
func StillCanonical(dir, p string) error {
	real, err := filepath.EvalSymlinks(p)
	if err != nil || real == p {
		return nil
	}
	return fmt.Errorf("%w: %s names %s, which now leads to %s", wskey.ErrNotItsFolder, dir, p, real)
}

// SessionsIn names the sessions of workspace folder dir by their items
// journals, reading nothing else.
func SessionsIn(fsys vfs.FS, dir string) []string {
	ents, _ := fsys.ReadDir(layout.SessionsDir(dir))
	var ids []string
	for _, e := range ents {
		if id, ok := strings.CutSuffix(e.Name(), layout.ItemsSuffix); ok && layout.ValidSessionID(id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// FutureIDs are the sessions of a listing (newest first) whose updated_at
// is after limit: their records are rebuilt from their journals, whose
// future-dated lines do not count as activity.
func FutureIDs(ents []index.Entry, limit time.Time) []string {
	var ids []string
	for _, e := range ents {
		if !e.UpdatedAt.After(limit) {
			break
		}
		ids = append(ids, e.ID)
	}
	return ids
}

// FutureLast moves the entries dated after limit, which a newest-first
// listing puts first, below every other one (in their own order): a time in
// the future never outranks real activity. ents is not modified.
func FutureLast(ents []index.Entry, limit time.Time) []index.Entry {
	k := len(FutureIDs(ents, limit))
	if k == 0 {
		return ents
	}
	out := make([]index.Entry, 0, len(ents))
	out = append(out, ents[k:]...)
	return append(out, ents[:k]...)
}

// Hinted is the sessions of workspace folder dir with an owner's hint: one
// per session open now or left open by a crash, a few whatever the number
// of sessions.
func Hinted(fsys vfs.FS, dir string) map[string]bool {
	hinted := map[string]bool{}
	if des, err := fsys.ReadDir(path.Join(dir, layout.Owners)); err == nil {
		for _, de := range des {
			hinted[de.Name()] = true
		}
	}
	return hinted
}

// LiveOwner is the pid of the process that holds session id's lock in
// workspace folder dir, -1 when its pid cannot be read, 0 when none does.
// It writes nothing: a dead owner's record is left for a listing to settle.
func LiveOwner(fsys vfs.FS, dir, id string) int {
	name := layout.Lock(dir, id)
	l, err := fsys.Lock(name)
	if err == nil {
		l.Release()
		return 0
	}
	if errors.Is(err, vfs.ErrLocked) {
		if pid, _ := owner.Of(fsys, name); pid > 0 {
			return pid
		}
		return -1
	}
	return 0
}

// Match is the session ref names among ents, as a lookup finds it: an id
// (any case), else the one session whose id starts with ref (any case) or
// whose title is ref. None is ErrNotFound, more than one ErrAmbiguous;
// where names the folder in the former.
func Match(ents []index.Entry, ref, where string) (string, error) {
	lower := strings.ToLower(ref)
	var m []string
	for i := range ents {
		e := &ents[i]
		if strings.EqualFold(e.ID, ref) {
			return e.ID, nil
		}
		if strings.HasPrefix(strings.ToLower(e.ID), lower) || e.Title == ref {
			m = append(m, e.ID)
		}
	}
	switch len(m) {
	case 0:
		return "", fmt.Errorf("%w: %q in %s", errs.ErrNotFound, ref, where)
	case 1:
		return m[0], nil
	}
	return "", fmt.Errorf("%w: %q matches %d sessions", errs.ErrAmbiguous, ref, len(m))
}

// Sort orders l as the picker does: newest updated_at first, ties by id,
// and those dated after limit (the future, by the store's clock) last;
// entry is the index entry of one of l.
func Sort[T any](l []T, limit time.Time, entry func(*T) *index.Entry) {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := entry(&l[i]), entry(&l[j])
		if fa, fb := a.UpdatedAt.After(limit), b.UpdatedAt.After(limit); fa != fb {
			return fb
		}
		if !a.UpdatedAt.Equal(b.UpdatedAt) {
			return a.UpdatedAt.After(b.UpdatedAt)
		}
		return a.ID < b.ID
	})
}
