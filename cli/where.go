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
	s, err := g.Open()
	if err != nil {
		return err
	}
	dir, err := g.Dir()
	if err != nil {
		return err
	}
	loc, err := s.Where(dir)
	if err != nil {
		return err
	}
	if g.JSON {
		return g.PrintJSON(loc)
	}
	fmt.Fprintf(g.Stdout, "path    %s\nkey     %s\nfolder  %s\n", display.Line(loc.Path), display.Line(loc.Key), display.Line(loc.Folder))
	if loc.Note != "" {
		say(g.Stderr, loc.Note)
	}
	return nil
}
