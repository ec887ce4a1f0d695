package fsck

import (
	"path"
	"strings"

	"cairn/engine/internal/layout"
	"cairn/engine/internal/migrate"
	"cairn/internal/vfs"
)

// Moves names the plans of session moves left in moves/: a move running
// now, or one a crash interrupted that the next open of the store finishes
// or undoes. A plan that cannot be read is a problem: no open acts on it.
// recovery is why this store's open could not finish or undo the move of
// a plan, or nil.
func (c *Checker) Moves(recovery func(plan string) error) {
	ents, err := c.FS.ReadDir(layout.Moves)
	if err != nil {
		if !vfs.IsNotExist(err) {
			c.Bad(layout.Moves, "the moves a crash interrupted cannot be listed: %v", err)
		}
		return
	}
	for _, e := range ents {
		name := path.Join(layout.Moves, e.Name())
		if msg, ok := DotNote(e.Name()); ok {
			c.Note(name, "%s", msg)
			continue
		}
		id, _ := strings.CutSuffix(e.Name(), ".json")
		b, err := vfs.ReadFile(c.FS, name)
		p, ok := migrate.ParsePlan(b, id)
		if err != nil || !ok {
			c.Bad(name, "not a session move's plan; no open acts on it")
			continue
		}
		if err := recovery(name); err != nil {
			c.Bad(name, "session %s is moving from %s to %s, and the open before this check could not finish or undo the move: %v (tried again at the next open)", id, p.FromPath, p.ToPath, err)
			continue
		}
		c.Note(name, "session %s is moving from %s to %s (a move running now, or one a crash cut short: the next open finishes or undoes it)", id, p.FromPath, p.ToPath)
	}
}
