package engine

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"cairn/engine/internal/fstate"
	"cairn/engine/internal/scope"
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
	var fenced *vfs.Fenced
	for _, s := range w.stateStores() {
		if home := w.holds(s); home != "" {
			if fenced == nil {
				fenced = d.Fence(home, s.disk)
			} else {
				fenced.Fence(home, s.disk)
			}
		}
	}
	if fenced != nil {
		return fenced, func() { fenced.Close() }, nil
	}
	return d, func() { d.Close() }, nil
}

// stateStores are the stores whose state folders the workspace's files
// must never reach: the store's own, and the persistent one an ephemeral
// store sends usage to.
func (w *Workspace) stateStores() []*Store {
	if w.s.ledger != nil {
		return []*Store{w.s, w.s.ledger}
	}
	return []*Store{w.s}
}

// holds returns the canonical path of store s's state folder when it lies
// in the workspace, or the workspace in it (cairn run in the folder that
// holds ~/.cairn, or inside it); else "". The workspace's files are then
// fenced off from it (vfs.Fenced): no name and no link reaches it.
func (w *Workspace) holds(s *Store) string {
	if home := s.canonicalHome(); scope.HoldsState(w.path, home) {
		return home
	}
	return ""
}

// leadsOut refuses rel, given as orig, when a symbolic link on its way
// leads outside the workspace: os.Root would refuse every use of it with an
// error of its own, which reads as a failure of cairn rather than of the
// name. A link that is rel itself is not followed, so it does not count.
func (w *Workspace) leadsOut(fsys vfs.FS, rel, orig string) error {
	if _, err := fsys.Lstat(rel); vfs.IsEscape(err) {
		return w.linkedOut(orig)
	}
	return nil
}

// linkedOut is the refusal of a name a symbolic link leads out of the
// workspace.
func (w *Workspace) linkedOut(orig string) error {
	return fmt.Errorf("%w: %s is outside the workspace %s: a symbolic link on its way leads out", ErrBadInput, orig, w.path)
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
	if !fstate.ValidRel(p) {
		return "", fmt.Errorf("%w: path %q does not name a file of the workspace", ErrBadInput, orig)
	}
	for _, s := range w.stateStores() {
		if h := w.homeRel(s); h != "" && (p == h || strings.HasPrefix(p, h+"/")) {
			return "", fmt.Errorf("%w: %s is inside cairn's state folder", ErrBadInput, orig)
		}
	}
	return p, nil
}

// homeRel is store s's state folder relative to the workspace, or "" when
// it is not inside it.
func (w *Workspace) homeRel(s *Store) string {
	home := s.canonicalHome()
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
