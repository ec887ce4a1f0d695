package engine

import (
	"fmt"
	"path/filepath"

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
// cleaned name (fstate.Rel): one outside the workspace, the workspace
// itself, or inside the state folder is refused with ErrBadInput.
func (w *Workspace) relPath(p string) (string, error) {
	var homes []string
	for _, s := range w.stateStores() {
		homes = append(homes, fstate.HomeRel(w.path, s.canonicalHome()))
	}
	return fstate.Rel(w.path, homes, p, ErrBadInput)
}

// absPath is the absolute path of a workspace-relative name, as answers
// show it.
func (w *Workspace) absPath(rel string) string {
	return filepath.Join(w.path, filepath.FromSlash(rel))
}
