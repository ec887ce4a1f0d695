package cli

import (
	"fmt"
	"io"
	"strings"

	"cairn/cli/display"
	"cairn/engine"
)

// ShellsCmd prints a session's shell history (engine/shell.go): the shell
// lines it ran in the foreground, each recorded before it started and
// again when it settled, or one of them with the end of what it printed.
type ShellsCmd struct {
	Session string `arg:"" help:"Session (id, prefix or title)."`
	RunID   string `arg:"" name:"run" optional:"" help:"A run id, as tool exec printed it (\"run\"): print what that command printed."`
}

func (c *ShellsCmd) Run(g *Globals) error {
	ws, id, err := g.resolveSession(c.Session)
	if err != nil {
		return err
	}
	bound, err := g.boundOf(ws, id)
	if err != nil {
		return err
	}
	var ents []engine.ShellEntry
	if bound != nil {
		err = g.onHost(ws, id, bound, true, func(b *boundSession) (err error) {
			ents, err = b.hs.Shells(g.Ctx)
			return err
		})
	} else {
		ents, err = ws.ShellHistory(g.Ctx, id)
	}
	if err != nil {
		return err
	}
	if !g.JSON {
		return writeShells(g.Stdout, g.Term, ents, c.RunID, id)
	}
	if c.RunID == "" {
		if ents == nil {
			ents = []engine.ShellEntry{}
		}
		return g.PrintJSON(ents)
	}
	e, err := shellEntry(ents, c.RunID, id)
	if err != nil {
		return err
	}
	return g.PrintJSON(e)
}

// writeShells prints the shell history ents of session to out, one command
// a row, or (run set) that command with the kept end of its streams, which
// go to term (unescaped) through the tool-output escaper.
func writeShells(out, term io.Writer, ents []engine.ShellEntry, run, session string) error {
	if run == "" {
		width := 0
		for _, e := range ents {
			width = max(width, len(e.Run))
		}
		for _, e := range ents {
			fmt.Fprintf(out, "%-*s  %s\n", width, e.Run, shellSummary(e))
		}
		return nil
	}
	e, err := shellEntry(ents, run, session)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s  %s\n", e.Run, shellSummary(*e))
	writeStream(out, term, "stdout", e.Stdout, e.StdoutCut)
	writeStream(out, term, "stderr", e.Stderr, e.StderrCut)
	return nil
}

// shellEntry is command run of ents, the shell history of session.
func shellEntry(ents []engine.ShellEntry, run, session string) (*engine.ShellEntry, error) {
	for i := range ents {
		if ents[i].Run == run {
			return &ents[i], nil
		}
	}
	return nil, notFoundf("no shell command %s in the shell history of session %s", display.Line(run), session)
}

// shellSummary is a command's state, exit code, start and first line.
func shellSummary(e engine.ShellEntry) string {
	state := e.Status
	if e.Status == engine.ShellFinished {
		state = fmt.Sprintf("exit %d", e.Exit)
	}
	cmd, _, more := strings.Cut(e.Cmd, "\n")
	if more || e.CmdCut > 0 {
		cmd += " […]"
	}
	return fmt.Sprintf("%-11s  %s  %s", state, e.StartedAt.Local().Format("2006-01-02 15:04:05"), display.Line(cmd))
}

// writeStream prints the kept end of one of a command's streams, its
// colours kept and every other control sequence escaped, as cairn output
// prints a tool output.
func writeStream(out, term io.Writer, name, text string, cut int64) {
	if text == "" && cut == 0 {
		return
	}
	head := "── " + name
	if cut > 0 {
		head += fmt.Sprintf(" (its first %d bytes not kept)", cut)
	}
	fmt.Fprintln(out, head+" ──")
	w := display.OutputWriter(colorWriter(term))
	io.WriteString(w, text)
	if !strings.HasSuffix(text, "\n") {
		io.WriteString(w, "\n")
	}
	w.Flush()
}

// replShellsCmd is /shells [RUN]: the current session's shell history.
type replShellsCmd struct {
	RunID string `arg:"" name:"run" optional:"" help:"A run id, as the list shows it: print what that command printed. Or stop, then JOB."`
	Job   string `arg:"" name:"job" optional:"" help:"With stop: the background shell job to stop (its id, as /tasks lists it)."`
}

func (c *replShellsCmd) Run(r *repl, l *replLine) error {
	if c.RunID == "stop" {
		return r.stopShellJob(l, c.Job)
	}
	if c.Job != "" {
		return usageErrorf("/shells takes one run id (or stop JOB)")
	}
	if !r.sess.Recorded() {
		fmt.Fprintln(r.out, "No shell lines in this session yet.")
		return nil
	}
	ents, err := r.shellHistory(l.ctx)
	if err != nil {
		return err
	}
	if len(ents) == 0 && c.RunID == "" {
		fmt.Fprintln(r.out, "No shell lines in this session yet.")
		return nil
	}
	return writeShells(r.out, r.g.Term, ents, c.RunID, r.sess.ID())
}
