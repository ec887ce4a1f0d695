package cli

import (
	"bufio"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"cairn/cli/display"
	"cairn/engine"
)

// MigrateCmd is `cairn migrate-sessions FROM TO`: move the saved sessions
// of one exact stored directory to another directory's workspace.
type MigrateCmd struct {
	From    string `arg:"" name:"from" help:"The directory the sessions were saved in, exactly as stored (it may be gone)."`
	To      string `arg:"" name:"to" help:"The directory to move them to."`
	NoUsage bool   `name:"no-usage" help:"Leave the usage ledger attributed to FROM."`
	Session string `name:"session" placeholder:"SESSION" help:"Move only this session (id or unique prefix); it keeps its own counters and the ledger is left as it is."`
	Yes     bool   `name:"yes" short:"y" help:"Move without asking (for scripts; required when stdin is not a terminal)."`
}

func (c *MigrateCmd) Run(g *Globals) error {
	if c.From == "" || c.To == "" {
		return usageErrorf("migrate-sessions needs FROM and TO")
	}
	s, err := g.Open()
	if err != nil {
		return err
	}
	// Relative paths are taken from -C DIR when it is given.
	from, to := c.From, c.To
	if g.Chdir != "" {
		if !filepath.IsAbs(from) {
			from = filepath.Join(g.Chdir, from)
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(g.Chdir, to)
		}
	}
	opts := engine.MigrateOptions{Session: c.Session, NoUsage: c.NoUsage}
	if !c.Yes {
		f := stdinTerminal(g)
		if f == nil {
			return usageErrorf("migrate-sessions asks before it moves anything; stdin is not a terminal, so pass --yes to move without asking")
		}
		dry := opts
		dry.DryRun = true
		plan, err := s.MigrateSessions(g.Ctx, from, to, dry)
		if err != nil {
			return err
		}
		fmt.Fprintf(g.Stdout, "Move %s saved in %s to %s.\n", plural(len(plan.Sessions), "session", "sessions"), display.Line(plan.From), display.Line(plan.To))
		fmt.Fprintf(g.Stdout, "%s\n", usagePlan(plan, opts))
		fmt.Fprintln(g.Stdout, "Files are not moved, and file changes made before the move can no longer be reverted.")
		fmt.Fprint(g.Stdout, "Move them? [y/N] ")
		if fl, ok := g.Stdout.(interface{ Flush() error }); ok {
			fl.Flush()
		}
		line, _ := bufio.NewReader(&ctxReader{ctx: g.Ctx, r: f}).ReadString('\n')
		if err := g.Ctx.Err(); err != nil {
			return err
		}
		if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
			fmt.Fprintln(g.Stdout, "Nothing was moved.")
			return nil
		}
	}
	res, err := s.MigrateSessions(g.Ctx, from, to, opts)
	if err != nil {
		if res != nil && len(res.Sessions) > 0 {
			fmt.Fprintf(g.Stderr, "cairn: %s moved before the error: %s\n", plural(len(res.Sessions), "session was", "sessions were"), strings.Join(res.Sessions, " "))
		}
		return err
	}
	if g.JSON {
		return g.PrintJSON(res)
	}
	fmt.Fprintf(g.Stdout, "Moved %s from %s to %s.\n", plural(len(res.Sessions), "session", "sessions"), display.Line(res.From), display.Line(res.To))
	fmt.Fprintln(g.Stdout, usageDone(res, opts))
	return nil
}

// usagePlan says what the move will do to the usage ledger.
func usagePlan(p *engine.MigrateResult, opts engine.MigrateOptions) string {
	switch {
	case opts.Session != "":
		return "The session keeps its own counters; the usage ledger stays attributed to the old directory."
	case opts.NoUsage:
		return "Historical usage stays attributed to the old directory (--no-usage)."
	case p.Usage == nil || p.Usage.Empty:
		return "The usage ledger holds nothing for the old directory."
	}
	return fmt.Sprintf("Historical usage moves too: %s in %s (%d new at the destination, %d added to existing ones).",
		plural(p.Usage.Lines, "ledger line", "ledger lines"), plural(p.Usage.Moved+p.Usage.Merged, "bucket", "buckets"), p.Usage.Moved, p.Usage.Merged)
}

// usageDone says what the move did to the usage ledger.
func usageDone(r *engine.MigrateResult, opts engine.MigrateOptions) string {
	switch {
	case opts.Session != "":
		return "Usage: the session kept its own counters; the ledger was left as it was."
	case opts.NoUsage:
		return "Usage: left attributed to the old directory (--no-usage)."
	case r.Usage == nil || r.Usage.Empty:
		return "Usage: the ledger held nothing for the old directory; nothing to move."
	}
	return fmt.Sprintf("Usage: %s moved and %d merged into existing ones (%s).", plural(r.Usage.Moved, "bucket", "buckets"), r.Usage.Merged, plural(r.Usage.Lines, "ledger line", "ledger lines"))
}

// replMigrateCmd is /migrate-sessions FROM TO [--no-usage] [--session S]
// [--yes] in the REPL, with the flags of `cairn migrate-sessions`: it says
// what it will move and asks on the next line (--yes: it does not ask).
// When the current session is one of those moved, it is closed first and
// resumed at the destination, where the REPL then works.
type replMigrateCmd struct {
	MigrateCmd `embed:""`
}

func (c *replMigrateCmd) Run(r *repl) error {
	if r.store.Ephemeral() {
		fmt.Fprintln(r.out, "This REPL's state folder is a temporary one: it holds no saved sessions to move.")
		return nil
	}
	from, to := c.From, c.To
	if dir, err := r.g.Dir(); err == nil {
		if !filepath.IsAbs(from) {
			from = filepath.Join(dir, from)
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(dir, to)
		}
	}
	opts := engine.MigrateOptions{Session: c.Session, NoUsage: c.NoUsage}
	dry := opts
	dry.DryRun = true
	plan, err := r.store.MigrateSessions(r.g.Ctx, from, to, dry)
	if err != nil {
		return err
	}
	current := ""
	if r.sess != nil && r.sess.Recorded() && slices.Contains(plan.Sessions, r.sess.ID()) {
		current = r.sess.ID()
	}
	fmt.Fprintf(r.out, "Move %s saved in %s to %s.\n", plural(len(plan.Sessions), "session", "sessions"), display.Line(plan.From), display.Line(plan.To))
	fmt.Fprintln(r.out, usagePlan(plan, opts))
	fmt.Fprintln(r.out, "Files are not moved, and file changes made before the move can no longer be reverted.")
	if current != "" {
		fmt.Fprintln(r.out, "This session is one of them: it is closed, moved, and resumed there.")
	}
	if !c.Yes {
		line, err := r.ask("Move them? [y/N] ")
		if a := strings.ToLower(strings.TrimSpace(line)); err != nil || a != "y" && a != "yes" {
			fmt.Fprintln(r.out, "Nothing was moved.")
			return nil
		}
	}
	if current != "" {
		r.closeSession()
	}
	res, err := r.store.MigrateSessions(r.g.Ctx, from, to, opts)
	if err != nil {
		fmt.Fprintln(r.out, "cairn:", userError(err))
	}
	if res != nil {
		fmt.Fprintf(r.out, "Moved %s from %s to %s.\n", plural(len(res.Sessions), "session", "sessions"), display.Line(res.From), display.Line(res.To))
		if err == nil {
			fmt.Fprintln(r.out, usageDone(res, opts))
		}
	}
	if current == "" {
		return nil
	}
	// The session is back in the REPL: at the destination when it moved,
	// where it was otherwise.
	if res != nil && slices.Contains(res.Sessions, current) {
		if ws, werr := r.store.Workspace(res.To); werr == nil {
			r.ws = ws
		}
	}
	if err := r.resume(current); err != nil {
		fmt.Fprintln(r.out, "cairn:", userError(err))
		r.startNew()
		fmt.Fprintln(r.out, "New session.")
	}
	return nil
}

// ask reads the answer to question q: on the line editor's prompt, or the
// next line of a pipe after q is printed.
func (r *repl) ask(q string) (string, error) {
	if r.ed != nil {
		return r.ed.ReadLine(q)
	}
	fmt.Fprint(r.out, q)
	if r.lines == nil {
		r.lines = bufio.NewReader(r.in)
	}
	return r.readLine()
}
