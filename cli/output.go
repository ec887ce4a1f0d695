package cli

import (
	"encoding/base64"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"cairn/cli/display"
)

// OutputCmd reads a session's stored tool outputs, or stores one.
type OutputCmd struct {
	Show OutputShowCmd `cmd:"" default:"withargs" help:"Print a stored tool output, or search it (cairn output SESSION ID)."`
	Put  OutputPutCmd  `cmd:"" help:"Store a tool output read from stdin and print its id."`
}

// OutputPutCmd stores a tool output for a session, as a tool's run would.
type OutputPutCmd struct {
	Session  string `name:"session" required:"" placeholder:"S" help:"Session the output belongs to (id, prefix or title)."`
	Producer string `name:"producer" placeholder:"NAME" default:"output" help:"The tool or shell label that made it; the id is made from it (e.g. output-cargo-test)."`
}

// outputAnswer is what output put prints.
type outputAnswer struct {
	Output string `json:"output"`
}

func (c *OutputPutCmd) Run(g *Globals) error {
	if strings.TrimSpace(c.Producer) == "" {
		return usageErrorf("--producer cannot be empty")
	}
	_, s, err := g.openSession(c.Session)
	if err != nil {
		return err
	}
	defer s.Close()
	id, err := s.PutOutput(g.Ctx, c.Producer, g.input())
	if err != nil {
		return err
	}
	if err := s.Close(); err != nil {
		return err
	}
	if g.JSON {
		return g.PrintJSON(outputAnswer{id})
	}
	fmt.Fprintln(g.Stdout, id)
	return nil
}

// OutputShowCmd prints a stored tool output of a session, or searches it.
type OutputShowCmd struct {
	Session string `arg:"" help:"Session (id, prefix or title) the output belongs to."`
	ID      string `arg:"" help:"Output id, as the tool result gave it (e.g. output-cargo-test-2)."`
	Search  string `name:"search" placeholder:"TEXT" help:"Print only the lines holding TEXT, with their line numbers."`
	// Printed for a person, the output keeps its colours and has every other
	// control sequence escaped; with --json, one JSON object holding the
	// stored bytes (outputJSON), or one array of the search's matches.
}

// outputJSON is an output as --json prints it: its text when the bytes are
// UTF-8, else the bytes in base64; never both.
type outputJSON struct {
	Session string  `json:"session"`
	Output  string  `json:"output"`
	Size    int     `json:"size"`
	Text    *string `json:"text,omitempty"`
	Base64  *string `json:"base64,omitempty"`
}

func (c *OutputShowCmd) Run(g *Globals) error {
	ws, id, err := g.resolveSession(c.Session)
	if err != nil {
		return err
	}
	if c.Search != "" {
		ms, err := ws.SearchOutput(g.Ctx, id, c.ID, c.Search)
		if err != nil {
			return err
		}
		if g.JSON {
			if ms == nil {
				return g.PrintJSON([]struct{}{})
			}
			return g.PrintJSON(ms)
		}
		for _, m := range ms {
			cut := ""
			if m.Cut {
				cut = " [...]"
			}
			fmt.Fprintf(g.Term, "%d:%s%s\n", m.Line, colors(display.Output(m.Text)), cut)
		}
		return nil
	}
	rc, err := ws.ReadOutput(g.Ctx, id, c.ID)
	if err != nil {
		return err
	}
	defer rc.Close()
	if g.JSON {
		b, err := io.ReadAll(rc)
		if err != nil {
			return err
		}
		out := outputJSON{Session: id, Output: c.ID, Size: len(b)}
		if utf8.Valid(b) {
			t := string(b)
			out.Text = &t
		} else {
			e := base64.StdEncoding.EncodeToString(b)
			out.Base64 = &e
		}
		return g.PrintJSON(out)
	}
	// Shown to a person: a tool's colours (SGR) are kept, every other
	// control sequence is escaped (cli/display).
	w := display.OutputWriter(colorWriter(g.Term))
	if _, err = io.Copy(w, rc); err != nil {
		return err
	}
	return w.Flush()
}
