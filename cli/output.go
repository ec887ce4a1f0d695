package cli

import (
	"fmt"
	"io"

	"cairn/cli/display"
)

// OutputCmd prints a stored tool output of a session, or searches it.
type OutputCmd struct {
	Session string `arg:"" help:"Session (id, prefix or title) the output belongs to."`
	ID      string `arg:"" help:"Output id, as the tool result gave it (e.g. output-cargo-test-2)."`
	Search  string `name:"search" placeholder:"TEXT" help:"Print only the lines holding TEXT, with their line numbers."`
	// Printed for a person, the output keeps its colours and has every other
	// control sequence escaped; with --json, the stored bytes as they are.
}

func (c *OutputCmd) Run(g *Globals) error {
	ws, id, err := g.resolveSession(c.Session)
	if err != nil {
		return err
	}
	if c.Search != "" {
		ms, err := ws.SearchOutput(g.ctx, id, c.ID, c.Search)
		if err != nil {
			return err
		}
		if g.JSON {
			for _, m := range ms {
				if err := g.printJSON(m); err != nil {
					return err
				}
			}
			return nil
		}
		for _, m := range ms {
			cut := ""
			if m.Cut {
				cut = " [...]"
			}
			fmt.Fprintf(g.term, "%d:%s%s\n", m.Line, colors(display.Output(m.Text)), cut)
		}
		return nil
	}
	rc, err := ws.ReadOutput(g.ctx, id, c.ID)
	if err != nil {
		return err
	}
	defer rc.Close()
	if g.JSON {
		_, err = io.Copy(g.term, rc) // the stored bytes, exactly
		return err
	}
	// Shown to a person: a tool's colours (SGR) are kept, every other
	// control sequence is escaped (cli/display).
	w := display.OutputWriter(colorWriter(g.term))
	if _, err = io.Copy(w, rc); err != nil {
		return err
	}
	return w.Flush()
}
