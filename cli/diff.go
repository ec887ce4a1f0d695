package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	xterm "golang.org/x/term"

	"cairn/cli/diffview"
	"cairn/cli/display"
	"cairn/engine"
)

// cairn diff and /diff: what a call or a whole turn changed, as a unified
// diff, read from the change records (engine.Workspace.Changes; the diff
// itself is cli/diffview's).

// DiffCmd is `cairn diff SESSION [ITEM]`.
type DiffCmd struct {
	Session string `arg:"" help:"Session (id, prefix or title)."`
	Item    string `arg:"" optional:"" help:"A tool call (what it changed) or a user prompt (what its whole turn changed): an item id, or N for the Nth item of the head path; left out, the newest recorded call."`
	Stat    bool   `name:"stat" help:"Only the summary: each file with the lines added and removed."`
}

// diffAnswer is `cairn diff --json`: per file, what was done and the lines
// added and removed.
type diffAnswer struct {
	Session string          `json:"session"`
	Item    string          `json:"item"`
	Turn    bool            `json:"turn"`
	Records []string        `json:"records"`
	Tools   []string        `json:"tools"`
	Files   []diffview.File `json:"files"`
}

func (c *DiffCmd) Run(g *Globals) error {
	ws, id, err := g.resolveSession(c.Session)
	if err != nil {
		return err
	}
	bound, err := g.boundOf(ws, id)
	if err != nil {
		return err
	}
	item := c.Item
	if item != "" {
		v, err := ws.ReadLean(g.Ctx, id)
		if err != nil {
			return err
		}
		if item, err = itemArg(v.Transcript(), item); err != nil {
			return err
		}
	}
	var files filesRoot = ws
	var ch *engine.Changes
	if bound != nil {
		err = g.onHost(ws, id, bound, true, func(b *boundSession) (err error) {
			ch, err = changesOnHost(g.Ctx, b.sess, b.hs, item, diffview.Limit)
			files = b.files()
			return err
		})
	} else {
		ch, err = ws.Changes(g.Ctx, id, item, diffview.Limit)
	}
	if err != nil {
		return err
	}
	return g.printDiff(ch, item, fileDiffs(files.Path(), ch.Files), c.Stat)
}

// printDiff prints what ch says a call or turn changed (asked: the item
// asked about): --json's answer, or the summary and (unless stat) the
// diff, in colour on a terminal.
func (g *Globals) printDiff(ch *engine.Changes, item string, files []diffview.File, stat bool) error {
	if g.JSON {
		return g.PrintJSON(diffAnswer{ch.Session, ch.Item, ch.Turn, ch.Records, ch.Tools, files})
	}
	w, color := g.Stdout, false
	if terminalOut(g.Term) && !noColor() {
		w, color = g.Term, true
	}
	writeChanges(w, ch, item, files, color, !stat)
	return nil
}

// terminalOut reports whether w is a terminal, where colour is wanted.
func terminalOut(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && xterm.IsTerminal(int(f.Fd()))
}

// fileDiffs are the diffs of files, named relative to the workspace dir
// when they are in it.
func fileDiffs(dir string, files []engine.FileChange) []diffview.File {
	out := make([]diffview.File, len(files))
	for i, fc := range files {
		name := fc.Path
		if rel, err := filepath.Rel(dir, fc.Path); err == nil && !strings.HasPrefix(rel, "..") {
			name = filepath.ToSlash(rel)
		}
		out[i] = diffview.Of(name, fc)
	}
	return out
}

// writeChanges says what was diffed (asked: the item asked about, "" for
// the newest recorded call), then the summary, then (full) the diff.
func writeChanges(w io.Writer, ch *engine.Changes, asked string, files []diffview.File, color, full bool) {
	what := "the newest recorded call"
	switch {
	case ch.Turn:
		what = "the turn of prompt " + ch.Item
	case asked != "":
		what = "call " + ch.Item
	case ch.Item != "":
		what += " (" + ch.Item + ")"
	}
	switch len(ch.Records) {
	case 0:
		fmt.Fprintf(w, "No file change is recorded for %s.\n", what)
		return
	case 1:
		fmt.Fprintf(w, "What %s changed (%s, record %s):\n", what, display.Line(ch.Tools[0]), ch.Records[0])
	default:
		fmt.Fprintf(w, "What %s changed (%s: %s):\n", what, plural(len(ch.Records), "record", "records"), display.Line(strings.Join(ch.Tools, ", ")))
	}
	if len(files) == 0 {
		fmt.Fprintln(w, "  every file is as it was before")
		return
	}
	diffview.WriteSummary(w, files, color)
	if full {
		fmt.Fprintln(w)
		diffview.WriteDiff(w, files, color)
	}
}

// replDiffCmd is /diff [ITEM] in the REPL: ITEM as /revert takes it (an
// id, or N for the Nth item of the head path), left out the newest
// recorded call.
type replDiffCmd struct {
	Item string `arg:"" optional:"" help:"A tool call (what it changed) or a user prompt (what its whole turn changed): an item id, or N for the Nth item of the head path; left out, the newest recorded call."`
}

func (c *replDiffCmd) Run(r *repl, l *replLine) error {
	item := ""
	if c.Item != "" {
		var err error
		if item, err = r.itemRef(c.Item); err != nil {
			fmt.Fprintln(r.out, err)
			return nil
		}
	}
	ch, err := r.changes(l.ctx, item)
	if err != nil {
		return err
	}
	w, color := r.out, false
	if r.ed != nil && !noColor() {
		w, color = r.g.Term, true
	}
	writeChanges(w, ch, item, fileDiffs(r.filesAt().Path(), ch.Files), color, true)
	return nil
}

// revertDiffs are the diffs of a revert preview's files: what each holds
// now against what the revert would give it; nil when they cannot be read.
func revertDiffs(ctx context.Context, dir string, f *engine.FileRevert) []diffview.File {
	cs, err := f.Contents(ctx, diffview.Limit)
	if err != nil || len(cs) != len(f.Files) {
		return nil
	}
	return fileDiffs(dir, cs)
}
