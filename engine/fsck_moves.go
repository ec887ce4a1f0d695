package engine

import (
	"encoding/json"
	"path"
	"strings"

	"cairn/internal/vfs"
)

// fsckMoves names the plans of session moves left in moves/ (migrate.go):
// a move running now, or one a crash interrupted that the next open of the
// store finishes or undoes. A plan that cannot be read is a problem: no
// open will act on it.
func (s *Store) fsckMoves(bad, note reporter) {
	ents, err := s.fsys.ReadDir(movesDir)
	if err != nil {
		return
	}
	for _, e := range ents {
		name := path.Join(movesDir, e.Name())
		if msg, ok := dotNote(e.Name()); ok {
			note(name, "%s", msg)
			continue
		}
		id, _ := strings.CutSuffix(e.Name(), ".json")
		var p movePlan
		b, err := vfs.ReadFile(s.fsys, name)
		if err != nil || json.Unmarshal(b, &p) != nil || p.Kind != "move" || p.Session != id || !keyName(p.From) || !keyName(p.To) {
			bad(name, "not a session move's plan; no open acts on it")
			continue
		}
		note(name, "session %s is moving from %s to %s (a move running now, or one a crash cut short: the next open finishes or undoes it)", id, p.FromPath, p.ToPath)
	}
}
