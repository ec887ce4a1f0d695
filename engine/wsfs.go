package engine

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"cairn/internal/vfs"
)

// The user's files are touched through one filesystem per operation, rooted
// at the workspace directory: on the real disk an os.Root (vfs.Disk), so no
// name in a record or an argument, and no symbolic link planted in the
// workspace, can make cairn read or write outside it.

// WithWorkspaceFS makes the store open workspace directories with open
// instead of the real disk; tests pass an in-memory or fault-injecting FS.
func WithWorkspaceFS(open func(dir string) (vfs.FS, error)) Option {
	return func(s *Store) { s.wsfs = open }
}

// files opens the workspace directory as a filesystem. Call done when
// finished with it.
func (w *Workspace) files() (vfs.FS, func(), error) {
	if open := w.s.wsfs; open != nil {
		fsys, err := open(w.path)
		if err != nil {
			return nil, nil, fmt.Errorf("engine: open workspace %s: %w", w.path, err)
		}
		return fsys, func() {}, nil
	}
	d, err := vfs.OpenDisk(w.path)
	if err != nil {
		return nil, nil, fmt.Errorf("engine: open workspace %s: %w", w.path, err)
	}
	return d, func() { d.Close() }, nil
}

// relPath turns a path argument into a workspace-relative, slash-separated,
// cleaned name. An absolute path inside the workspace is converted; one
// outside it, a name climbing out with "..", the workspace itself, and a
// name inside the state folder (when that lies in the workspace) are
// refused with ErrBadInput.
func (w *Workspace) relPath(p string) (string, error) {
	orig := p
	if p == "" || strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("%w: path %q", ErrBadInput, orig)
	}
	if filepath.IsAbs(p) {
		rel, err := filepath.Rel(w.path, filepath.Clean(p))
		if err != nil {
			return "", fmt.Errorf("%w: %s is outside the workspace %s", ErrBadInput, orig, w.path)
		}
		p = rel
	}
	p = path.Clean(filepath.ToSlash(p))
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", fmt.Errorf("%w: %s is outside the workspace %s", ErrBadInput, orig, w.path)
	}
	if !validRel(p) {
		return "", fmt.Errorf("%w: path %q does not name a file of the workspace", ErrBadInput, orig)
	}
	if h := w.homeRel(); h != "" && (p == h || strings.HasPrefix(p, h+"/")) {
		return "", fmt.Errorf("%w: %s is inside cairn's state folder", ErrBadInput, orig)
	}
	return p, nil
}

// validRel reports whether p is a name as change records hold them:
// relative, slash-separated, cleaned, not climbing out, not the workspace
// itself.
func validRel(p string) bool {
	return p != "" && p != "." && p != ".." && !path.IsAbs(p) && path.Clean(p) == p &&
		!strings.HasPrefix(p, "../") && !strings.ContainsRune(p, 0) && !strings.Contains(p, "\\..")
}

// homeRel is the state folder relative to the workspace, or "" when it is
// not inside it.
func (w *Workspace) homeRel() string {
	home := w.s.home
	if c, err := Canonical(home); err == nil {
		home = c
	}
	rel, err := filepath.Rel(w.path, home)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return ""
	}
	return filepath.ToSlash(rel)
}

// absPath is the absolute path of a workspace-relative name, as answers
// show it.
func (w *Workspace) absPath(rel string) string {
	return filepath.Join(w.path, filepath.FromSlash(rel))
}

// required reports whether snapshots.required covers rel: true, or a glob
// matching the workspace-relative name or the absolute path.
func (w *Workspace) required(c SnapshotsConfig, rel string) bool {
	if c.RequiredAll {
		return true
	}
	abs := filepath.ToSlash(w.absPath(rel))
	for _, g := range c.RequiredGlobs {
		name := rel
		if strings.HasPrefix(g, "/") {
			name = abs
		}
		if matchGlob(g, name) {
			return true
		}
	}
	return false
}
