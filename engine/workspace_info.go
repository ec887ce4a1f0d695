package engine

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"

	"cairn/engine/internal/wsinfo"
	"cairn/engine/wskey"
)

// resolveFolder is wskey.Resolve with a disputed folder settled
// (wsinfo.Settle). repaired
// says, once, what was rewritten.
func (s *Store) resolveFolder(p string, create bool) (key, note, repaired string, err error) {
	key, note, err = wskey.Resolve(s.fsys, workspacesDir, p, create, s.now)
	var d *wskey.DisputedError
	if !errors.As(err, &d) {
		return key, note, "", err
	}
	return wsinfo.Settle(s.fsys, s.home, d, create, s.now)
}

// named reports whether workspace folder dir holds a workspace.json (which
// may still be unreadable): Workspace.made.
func (s *Store) named(dir string) bool {
	_, err := s.fsys.Lstat(path.Join(dir, wskey.InfoFile))
	return err == nil
}

// Adopt makes the workspace folder of dir's own key name dir in its
// workspace.json (a moved directory, a damaged file); it refuses when there
// is no such folder or it names dir already.
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
	aside, err := wsinfo.Aside(s.fsys, d.Key)
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
