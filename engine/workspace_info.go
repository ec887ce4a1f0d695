package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"cairn/engine/wskey"
	"cairn/internal/vfs"
	"cairn/journal"
)

// A workspace folder's workspace.json names its path. When the folder with
// the path's own key holds a workspace.json that is unreadable, names a path
// with another key, or is missing from a hashed folder (wskey calls it
// disputed), cairn neither uses the folder blindly nor passes it over for a
// new ~2 folder, which would hide every session in it. It asks the sessions:
// each one's items journal opens with the path it was made in. When every
// session was made in this directory (or there are none), workspace.json is
// rewritten to name it, atomically, and the user is told once. Otherwise
// nothing is used or changed, and the error says how to settle it:
// `cairn storage adopt` when the folder is this directory's (a directory
// that was moved or renamed), or moving the folder away.

// resolveFolder is wskey.Resolve with a disputed folder settled. repaired
// says, once, what was rewritten.
func (s *Store) resolveFolder(p string, create bool) (key, note, repaired string, err error) {
	key, note, err = wskey.Resolve(s.fsys, workspacesDir, p, create, s.now)
	var d *wskey.DisputedError
	if !errors.As(err, &d) {
		return key, note, "", err
	}
	return s.settle(d, create)
}

// named reports whether workspace folder dir holds a workspace.json (which
// may still be unreadable): Workspace.made.
func (s *Store) named(dir string) bool {
	_, err := s.fsys.Lstat(path.Join(dir, wskey.InfoFile))
	return err == nil
}

// settle rewrites the workspace.json of disputed folder d when its sessions
// agree that it is d.Path's, or refuses.
func (s *Store) settle(d *wskey.DisputedError, create bool) (key, note, repaired string, err error) {
	folder := filepath.Join(s.home, workspacesDir, d.Key)
	what := "is missing"
	switch {
	case d.Named != "":
		what = "names " + d.Named
	case errors.Is(d.Err, syscall.EISDIR):
		what = "is a folder"
	case errors.Is(d.Err, vfs.ErrNotRegular):
		what = "is not a regular file"
	case !isNotExist(d.Err):
		what = "is unreadable"
	}
	n, others := s.sessionPaths(workspaceDir(d.Key), d.Path)
	if len(others) > 0 {
		return "", "", "", refusedf("workspace folder %s has this directory's name, but its workspace.json %s and sessions in it were made in %s; "+
			"nothing was used or changed. If they belong here (the directory was moved or renamed), run `cairn storage adopt` in %s; "+
			"otherwise move the folder away", folder, what, strings.Join(others, ", "), d.Path)
	}
	aside, werr := s.infoAside(d.Key)
	if aside != "" {
		what += ", moved aside to " + aside
	}
	if werr == nil {
		werr = wskey.WriteInfo(s.fsys, workspacesDir, d.Key, d.Path, s.now)
	}
	if werr != nil {
		if create {
			return "", "", "", fmt.Errorf("engine: workspace folder %s: its workspace.json %s and could not be rewritten: %w", folder, what, werr)
		}
		// Reads need no write: the folder is this directory's by its name
		// and by every session in it.
		return d.Key, fmt.Sprintf("workspace folder %s: its workspace.json %s and could not be rewritten (%v); its %d sessions were made here, so it is used", folder, what, werr, n), "", nil
	}
	repaired = fmt.Sprintf("workspace folder %s: its workspace.json %s; its %d sessions were made here, so it was rewritten to name %s", folder, what, n, d.Path)
	if later := s.laterFolders(d.Key, d.Path); len(later) > 0 {
		repaired += fmt.Sprintf("; the sessions made meanwhile in %s are not listed here (see cairn storage fsck)", strings.Join(later, ", "))
	}
	return d.Key, "", repaired, nil
}

// laterFolders lists the folders key~N that name p: made by older builds
// while key's workspace.json was damaged.
func (s *Store) laterFolders(key, p string) []string {
	ents, err := s.fsys.ReadDir(workspacesDir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), key)
		if !ok || !suffixN(rest) {
			continue
		}
		if in, err := wskey.ReadInfo(s.fsys, path.Join(workspacesDir, e.Name())); err == nil && in.Path == p {
			out = append(out, e.Name())
		}
	}
	return out
}

// sessionPaths reads the path each session of workspace folder dir was made
// in, from its items journal's session line (or, lacking one, its record),
// and returns how many sessions there are and the paths other than p.
func (s *Store) sessionPaths(dir, p string) (n int, others []string) {
	ents, err := s.fsys.ReadDir(path.Join(dir, "sessions"))
	if err != nil {
		return 0, nil
	}
	stop := errors.New("stop")
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".items.jsonl")
		if !ok || !validSessionID(id) {
			continue
		}
		made := ""
		journal.Read(s.fsys, itemsName(dir, id), func(b []byte) error {
			var l struct {
				Kind string `json:"kind"`
				Path string `json:"path"`
			}
			if json.Unmarshal(b, &l) == nil && l.Kind == kindSession {
				made = l.Path
			}
			return stop
		})
		if made == "" {
			if r, err := readRecord(s.fsys, dir, id); err == nil {
				made = r.Path
			}
		}
		if made == "" {
			continue // holds nothing that says where: an empty session, named by fsck
		}
		n++
		if made != p && !slices.Contains(others, made) {
			others = append(others, made)
		}
	}
	return n, others
}

// Adopt makes the workspace folder named by dir's own key name dir in its
// workspace.json, whatever its sessions say: for a folder whose directory
// was moved or renamed, or whose workspace.json was damaged. It refuses
// when there is no such folder, or when it already names dir.
func (s *Store) Adopt(dir string) (Location, error) {
	p, err := Canonical(dir)
	if err != nil {
		return Location{}, err
	}
	key, _, err := wskey.Resolve(s.fsys, workspacesDir, p, false, s.now)
	var d *wskey.DisputedError
	switch {
	case errors.As(err, &d):
	case err == nil && key == wskey.Key(p):
		return Location{}, refusedf("nothing to adopt: workspace folder %s already names %s", filepath.Join(s.home, workspacesDir, key), p)
	case err == nil || errors.Is(err, wskey.ErrNoWorkspace):
		return Location{}, refusedf("nothing to adopt: there is no folder %s for %s", filepath.Join(s.home, workspacesDir, wskey.Key(p)), p)
	default:
		return Location{}, err
	}
	aside, err := s.infoAside(d.Key)
	if err == nil {
		err = wskey.WriteInfo(s.fsys, workspacesDir, d.Key, p, s.now)
	}
	if err != nil {
		return Location{}, fmt.Errorf("engine: adopt %s: %w", d.Key, err)
	}
	loc := Location{Path: p, Key: d.Key, Folder: filepath.Join(s.home, workspacesDir, d.Key)}
	if aside != "" {
		loc.Note = "its workspace.json was a folder: it was moved aside to " + aside
	}
	return loc, nil
}

// infoAside moves a folder that stands where workspace folder key's
// workspace.json belongs (no rename of a new workspace.json can replace a
// folder) aside, to workspace.json.damaged (or .damaged~N, the first
// name free) beside it, and returns that name; "" when there is no such
// folder. A FIFO or any other file there is replaced by the rename itself.
func (s *Store) infoAside(key string) (string, error) {
	name := path.Join(workspacesDir, key, wskey.InfoFile)
	if fi, err := s.fsys.Lstat(name); err != nil || !fi.IsDir() {
		return "", nil
	}
	for n := 1; n <= 1000; n++ {
		aside := name + ".damaged"
		if n > 1 {
			aside += "~" + strconv.Itoa(n)
		}
		if _, err := s.fsys.Lstat(aside); err == nil {
			continue
		} else if !isNotExist(err) {
			return "", fmt.Errorf("engine: move the folder %s aside: %w", name, err)
		}
		if err := s.fsys.Rename(name, aside); err != nil {
			return "", fmt.Errorf("engine: move the folder %s aside: %w", name, err)
		}
		return path.Base(aside), s.fsys.SyncDir(path.Dir(name))
	}
	return "", fmt.Errorf("engine: move the folder %s aside: %s.damaged~1000 are taken", name, name)
}

// fsckWorkspaceInfo reports a workspace.json that names a path whose folder
// this is not: its name is neither that path's key nor that key with a ~N
// suffix. cairn uses such a folder for no directory until it is settled.
func (s *Store) fsckWorkspaceInfo(dir string, bad reporter) {
	name := path.Join(dir, wskey.InfoFile)
	in, err := wskey.ReadInfo(s.fsys, dir)
	if err != nil {
		var raw struct {
			V    int    `json:"v"`
			Path string `json:"path"`
		}
		if b, rerr := vfs.ReadFile(s.fsys, name); rerr == nil && json.Unmarshal(b, &raw) == nil && raw.V == 1 && raw.Path != "" && !strings.HasPrefix(raw.Path, "/") {
			bad(name, "names %q, which is not an absolute path: cairn uses this folder for no directory", raw.Path)
		}
		return
	}
	key, folder := wskey.Key(in.Path), path.Base(dir)
	if rest, ok := strings.CutPrefix(folder, key); ok && (rest == "" || suffixN(rest)) {
		// A folder of the path's that the path no longer resolves to: a
		// ~N made while the path's own folder had a damaged workspace.json.
		if used, _, err := wskey.Resolve(s.fsys, workspacesDir, in.Path, false, nil); err == nil && used != folder {
			bad(name, "names %s, but cairn uses folder %s for it: the sessions here are not listed there (made while that folder's workspace.json was damaged); move them into it to see them",
				in.Path, used)
		}
		return
	}
	hint := "correct or remove it"
	if p, err := wskey.Decode(folder); err == nil {
		hint = fmt.Sprintf("if its sessions belong to %s, run `cairn storage adopt` there", p)
	}
	bad(name, "names %s, whose folder would be %s: cairn uses this folder for no directory until it is settled; %s", in.Path, key, hint)
}

// suffixN reports whether t is a workspace key's "~N" suffix (N >= 2).
func suffixN(t string) bool {
	n, err := strconv.Atoi(strings.TrimPrefix(t, "~"))
	return strings.HasPrefix(t, "~") && err == nil && n >= 2 && t[1] != '0' && t[1] != '+' && t[1] != '-'
}
