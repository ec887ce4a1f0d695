package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/schollz/progressbar/v3"
	xterm "golang.org/x/term"

	"cairn/cli/display"
	"cairn/cli/hookcmd"
	"cairn/importer"
)

// ImportCmd brings other agents' session histories into cairn.
type ImportCmd struct {
	ClaudeCode ImportClaudeCodeCmd `cmd:"" name:"claude-code" help:"Import Claude Code sessions (default: every project under $CLAUDE_CONFIG_DIR, else ~/.claude)."`
	Codex      ImportCodexCmd      `cmd:"" name:"codex" help:"Import Codex sessions (default: every rollout under $CODEX_HOME, else ~/.codex)."`
}

// ImportClaudeCodeCmd is `cairn import claude-code [PATH…]`.
type ImportClaudeCodeCmd struct{ importArgs }

// ImportCodexCmd is `cairn import codex [PATH…]`.
type ImportCodexCmd struct{ importArgs }

func (c *ImportClaudeCodeCmd) Run(g *Globals) error { return c.run(g, importer.AgentClaudeCode) }
func (c *ImportCodexCmd) Run(g *Globals) error      { return c.run(g, importer.AgentCodex) }

type importArgs struct {
	Paths  []string `arg:"" optional:"" placeholder:"PATH" help:"Session files, or folders to search for them."`
	DryRun bool     `name:"dry-run" help:"Say what an import would add; write nothing."`
}

func (c *importArgs) run(g *Globals, agent string) error {
	roots := c.Paths
	if len(roots) == 0 {
		root, err := hookcmd.AgentHome(agent)
		if err != nil {
			return err
		}
		if _, err := os.Stat(root); err != nil {
			return &exitError{Code: ExitFailed, Word: "not_found", Err: fmt.Errorf("no %s sessions here: %s cannot be read (%v); name the files or folders to import", agent, root, errors.Unwrap(err))}
		}
		roots = []string{root}
	}
	for i, r := range roots {
		if !filepath.IsAbs(r) && g.Chdir != "" {
			roots[i] = filepath.Join(g.Chdir, r)
		}
	}
	files, err := importer.Files(agent, roots)
	if err != nil {
		return usageErrorf("%v", err)
	}
	s, err := g.Open()
	if err != nil {
		return err
	}
	opts := importer.Options{DryRun: c.DryRun}
	if f, ok := g.Stderr.(*os.File); ok && !g.JSON && xterm.IsTerminal(int(f.Fd())) && len(files) > 1 {
		bar := progressbar.NewOptions64(-1, progressbar.OptionSetWriter(f), progressbar.OptionSetDescription("importing"),
			progressbar.OptionShowBytes(true), progressbar.OptionClearOnFinish())
		opts.Progress = func(done, total int64) {
			bar.ChangeMax64(total)
			bar.Set64(done)
		}
		defer bar.Finish()
	}
	rep, err := importer.Run(g.Ctx, s, agent, files, opts)
	if err != nil {
		return err
	}
	if g.JSON {
		if err := g.PrintJSON(rep); err != nil {
			return err
		}
	} else {
		printImport(g, rep)
	}
	if rep.Failed > 0 {
		return &exitError{Code: ExitFailed, Word: "import", Err: fmt.Errorf("%d of %d sources could not be imported", rep.Failed, len(rep.Sessions)), Quiet: g.JSON}
	}
	return nil
}

// printImport is the summary a person reads: a line per source that
// changed or failed, then the totals and the lines left out by kind.
func printImport(g *Globals, rep *importer.Report) {
	verb := "imported"
	if rep.DryRun {
		verb = "would import"
	}
	for _, sr := range rep.Sessions {
		switch {
		case sr.Error != "":
			fmt.Fprintf(g.Stdout, "%s: %s\n", display.Line(sr.File), display.Line(sr.Error))
		case !sr.Unchanged:
			what := "new session"
			if !sr.Created {
				what = "session"
			}
			fmt.Fprintf(g.Stdout, "%s %s of %s into %s %s (%s)\n", verb, plural(sr.Items, "item", "items"), display.Line(sr.File), what, sr.Session, display.Line(sr.Dir))
		}
	}
	fmt.Fprintf(g.Stdout, "%s: %s, %d grown, %d unchanged, %d failed; %s\n",
		plural(len(rep.Sessions), "source", "sources"), plural(rep.Created, "new session", "new sessions"), rep.Updated, rep.Unchanged, rep.Failed, plural(rep.Items, "item", "items"))
	if len(rep.Totals.Skipped) > 0 {
		var kinds []string
		for k, n := range rep.Totals.Skipped {
			kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
		}
		slices.Sort(kinds)
		fmt.Fprintf(g.Stdout, "lines left out, by kind: %s\n", display.Line(strings.Join(kinds, ", ")))
	}
	if rep.Totals.Merged > 0 {
		fmt.Fprintf(g.Stdout, "%d lines merged into the message an earlier line began\n", rep.Totals.Merged)
	}
	if rep.Totals.Torn > 0 {
		fmt.Fprintf(g.Stdout, "%d bytes of torn last lines not read (the next import reads them once whole)\n", rep.Totals.Torn)
	}
	if rep.Tasks > 0 {
		fmt.Fprintf(g.Stdout, "%d sub-agent transcripts as tasks of their sessions (%d items; cairn tasks SESSION lists them)\n", rep.Tasks, rep.TaskItems)
	}
	if rep.Unlinked > 0 {
		fmt.Fprintf(g.Stdout, "%d sub-agent transcripts left out: no call of their session names them (an automatic compaction's agent)\n", rep.Unlinked)
	}
}
