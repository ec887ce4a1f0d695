package cli

import (
	"fmt"

	"cairn/cli/display"
	"cairn/engine"
	"cairn/httpapi"
)

// StorageCmd groups the state folder's maintenance commands.
type StorageCmd struct {
	Fsck          FsckCmd           `cmd:"" help:"Verify every object, journal and record; exit 1 when anything is wrong."`
	Usage         UsageCmd          `cmd:"" help:"Sum the usage ledger by directory and model."`
	Stats         StatsCmd          `cmd:"" help:"Show where the state folder's disk space went: a bar by part, exact sizes, counts, and what a prune would reclaim."`
	Snapshots     SnapshotStoresCmd `cmd:"" help:"List the change stores (the recorded file changes file revert uses), largest first, one per workspace; orphaned ones are marked."`
	Adopt         AdoptCmd          `cmd:"" help:"Make the workspace folder named by this directory's key name this directory (after a move, or a damaged workspace.json)."`
	RetentionCmds `embed:""`        // cli/retention.go
}

// AdoptCmd rewrites the workspace.json of this directory's own folder.
type AdoptCmd struct{}

func (c *AdoptCmd) Run(g *Globals) error {
	s, err := g.Open()
	if err != nil {
		return err
	}
	dir, err := g.Dir()
	if err != nil {
		return err
	}
	loc, err := s.Adopt(dir)
	if err != nil {
		return err
	}
	if g.JSON {
		return g.PrintJSON(loc)
	}
	if loc.Note != "" {
		say(g.Stderr, loc.Note)
	}
	fmt.Fprintf(g.Stdout, "workspace folder %s now names %s\n", loc.Folder, loc.Path)
	return nil
}

// FsckCmd checks the whole state folder.
type FsckCmd struct {
	Remote string `name:"remote" placeholder:"NAME" help:"Check a remote instead: every object, segment and lease on it."`
}

func (c *FsckCmd) Run(g *Globals) error {
	s, err := g.Open()
	if err != nil {
		return err
	}
	if c.Remote != "" {
		return g.remoteFsck(s, c.Remote)
	}
	bar := g.progress("fsck")
	rep, err := s.FsckProgress(g.Ctx, bar.tell)
	bar.done()
	if err != nil {
		return err
	}
	// The HTTP API's credentials.json is in the state folder too.
	rep.Problems = append(rep.Problems, httpapi.Fsck(s)...)
	if g.JSON {
		if err := g.PrintJSON(rep); err != nil {
			return err
		}
	} else {
		for _, p := range rep.Problems {
			fmt.Fprintf(g.Stdout, "%s: %s\n", display.Line(p.Path), display.Line(userText(p.Problem)))
		}
		for _, p := range rep.Notes {
			fmt.Fprintf(g.Stdout, "note: %s: %s\n", display.Line(p.Path), display.Line(userText(p.Problem)))
		}
		fmt.Fprintf(g.Stdout, "checked %d objects, %d journals (%d lines), %d records: %d problems\n",
			rep.Objects, rep.Journals, rep.Lines, rep.Records, len(rep.Problems))
	}
	if len(rep.Problems) > 0 {
		return &exitError{Code: ExitFailed, Word: "fsck", Err: fmt.Errorf("%d problems found", len(rep.Problems)), Quiet: g.JSON}
	}
	return nil
}

// UsageCmd sums spend.
type UsageCmd struct{}

func (c *UsageCmd) Run(g *Globals) error {
	s, err := g.Open()
	if err != nil {
		return err
	}
	sums, skipped, err := s.UsageChecked(g.Ctx)
	if err != nil {
		return err
	}
	for _, k := range skipped {
		fmt.Fprintf(g.Stderr, "cairn: usage.jsonl line %d skipped: %s\n", k.Line, userText(k.Why))
	}
	if g.JSON {
		if sums == nil {
			sums = []engine.UsageSum{}
		}
		return g.PrintJSON(sums)
	}
	for _, u := range sums {
		fmt.Fprintf(g.Stdout, "%s  %s  %s  %d in  %d out  $%.4f\n", u.Path, u.Model, plural(u.Turns, "turn", "turns"), u.InputTokens, u.OutputTokens, u.CostUSD)
	}
	return nil
}
