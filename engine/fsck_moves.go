package engine

import (
	"path"
	"strings"

	"cairn/engine/internal/layout"
	"cairn/engine/internal/migrate"
	"cairn/internal/vfs"
)

// fsckMoves names the plans of session moves left in moves/ (migrate.go):
// a move running now, or one a crash interrupted that the next open of the
// store finishes or undoes. A plan that cannot be read is a problem: no
// open will act on it.
func (s *Store) fsckMoves(bad, note reporter) {
	ents, err := s.fsys.ReadDir(layout.Moves)
	if err != nil {
		if !vfs.IsNotExist(err) {
			bad(layout.Moves, "the moves a crash interrupted cannot be listed: %v", err)
		}
		return
	}
	for _, e := range ents {
		name := path.Join(layout.Moves, e.Name())
		if msg, ok := dotNote(e.Name()); ok {
			note(name, "%s", msg)
			continue
		}
		id, _ := strings.CutSuffix(e.Name(), ".json")
		b, err := vfs.ReadFile(s.fsys, name)
		p, ok := migrate.ParsePlan(b, id)
		if err != nil || !ok {
			bad(name, "not a session move's plan; no open acts on it")
			continue
		}
		if err := s.recoveryOf(name); err != nil {
			bad(name, "session %s is moving from %s to %s, and the open before this check could not finish or undo the move: %v (tried again at the next open)", id, p.FromPath, p.ToPath, err)
			continue
		}
		note(name, "session %s is moving from %s to %s (a move running now, or one a crash cut short: the next open finishes or undoes it)", id, p.FromPath, p.ToPath)
	}
}

// recoveryOf is why this store's open could not finish or undo what a
// crash left at name, or nil.
func (s *Store) recoveryOf(name string) error {
	for _, r := range s.recoveryErrs {
		if r.Path == name {
			return r.Err
		}
	}
	return nil
}
