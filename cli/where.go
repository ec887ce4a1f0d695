package cli

import (
	"fmt"

	"cairn/cli/display"
)

// WhereCmd prints where this directory's state lives.
type WhereCmd struct{}

func (c *WhereCmd) Run(g *Globals) error {
	if g.SSH != "" {
		return remoteWhere(g)
	}
	s, err := g.open()
	if err != nil {
		return err
	}
	dir, err := g.dir()
	if err != nil {
		return err
	}
	loc, err := s.Where(dir)
	if err != nil {
		return err
	}
	if g.JSON {
		return g.printJSON(loc)
	}
	fmt.Fprintf(g.stdout, "path    %s\nkey     %s\nfolder  %s\n", display.Line(loc.Path), display.Line(loc.Key), display.Line(loc.Folder))
	if loc.Note != "" {
		say(g.stderr, loc.Note)
	}
	return nil
}
