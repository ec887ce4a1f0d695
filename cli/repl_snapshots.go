package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"cairn/cli/display"
	"cairn/cli/term"
	"cairn/engine"
)

// The REPL's file tools and undo stack (seed 001): the tool lines
// `:write PATH` (then lines, ended by a line holding only "."),
// `:edit PATH OLD NEW` (shell words), `:rm PATH` and `:patch`
// (cli/patch.go), and the commands /undo, /redo, /snapshots and
// /snapshots restore SNAP.

// bindSnapshotKeys binds Alt+Z, Alt+R and F9 where the terminal sends them,
// and the leader keys: the leader (Ctrl-X unless --leader says otherwise),
// then z, r or p.
func (r *repl) bindSnapshotKeys() {
	if r.ed == nil {
		return
	}
	for _, b := range [][2]string{
		{"alt+z", "/undo"}, {"alt+r", "/redo"}, {"f9", "/snapshots"},
		{"leader z", "/undo"}, {"leader r", "/redo"}, {"leader p", "/snapshots"},
	} {
		r.ed.Bind(b[0], b[1])
	}
}

// replWriteCmd is :write PATH, then its content.
type replWriteCmd struct {
	ToolWriteCmd `embed:""`
}

func (c *replWriteCmd) Run(r *repl, l *replLine) error {
	// A text of several lines (pasted, or typed with Alt+Enter) holds the
	// content after its first line; else the lines that follow do.
	content := l.body
	if !l.multi {
		var ok bool
		if content, ok = r.readBlock(); !ok {
			fmt.Fprintln(r.out, "Cancelled before the line holding only \".\"; nothing was written.")
			return nil
		}
	}
	return r.runTool(l.ctx, func() (*engine.ToolAnswer, error) { return r.cell().ToolWrite(l.ctx, c.Path, []byte(content)) })
}

// replEditCmd is :edit PATH OLD NEW.
type replEditCmd struct {
	ToolEditCmd `embed:""`
}

func (c *replEditCmd) Run(r *repl, l *replLine) error {
	return r.runTool(l.ctx, func() (*engine.ToolAnswer, error) {
		return r.cell().ToolEdit(l.ctx, c.Path, c.Old, c.New, engine.ToolOptions{ReplaceAll: c.All})
	})
}

// replRmCmd is :rm PATH.
type replRmCmd struct {
	ToolRmCmd `embed:""`
}

func (c *replRmCmd) Run(r *repl, l *replLine) error {
	return r.runTool(l.ctx, func() (*engine.ToolAnswer, error) { return r.cell().ToolRm(l.ctx, c.Path) })
}

// runTool runs a tool line's tool and says what it did. A tool line is its
// own turn: durable once shown.
func (r *repl) runTool(ctx context.Context, run func() (*engine.ToolAnswer, error)) error {
	a, err := run()
	if errors.Is(err, context.Canceled) {
		// The tools are atomic: a cancelled one changed nothing.
		fmt.Fprintln(r.out, "\nCancelled; nothing was changed.")
		return nil
	}
	if err != nil {
		return refusedLine(err)
	}
	printToolAnswer(r.out, r.filesAt(), a)
	if err := r.cell().Commit(r.g.Ctx); err != nil {
		fmt.Fprintln(r.out, "cairn: the change is made but may not survive a crash:", userError(err))
	}
	return nil
}

// blockContent is the content of a :write or a :patch given in one text
// with it (pasted, or typed with Alt+Enter): the lines after the first, as
// they are (tabs, blank lines and trailing blanks kept), ending with a line
// feed. A last line holding only "." ends the content as it ends the typed
// form, so pasting the shape /help shows writes no "." line.
func blockContent(body string) string {
	b := strings.TrimSuffix(body, "\n")
	if b == "." {
		return ""
	}
	if strings.HasSuffix(b, "\n.") {
		return strings.TrimSuffix(b, ".")
	}
	return b + "\n"
}

// readBlock reads the lines of a :write up to a line holding only ".". A
// text of several lines (pasted at the "... " prompt, a "." typed after it)
// is taken line by line: its last line ending the block if it is ".", as
// when each line is typed.
func (r *repl) readBlock() (string, bool) {
	var b strings.Builder
	for {
		var line string
		var err error
		if r.ed != nil {
			line, err = r.ed.ReadLine("... ")
		} else {
			line, err = r.readLine()
		}
		if errors.Is(err, term.ErrInterrupted) {
			return "", false
		}
		if err != nil {
			return "", false
		}
		if line == "." {
			return b.String(), true
		}
		if last := strings.TrimSuffix(line, "\n"); strings.HasSuffix(last, "\n.") {
			b.WriteString(strings.TrimSuffix(last, "."))
			return b.String(), true
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
}

// replUndoCmd is /undo; replRedoCmd, /redo.
type (
	replUndoCmd struct{}
	replRedoCmd struct{}
)

func (c *replUndoCmd) Run(r *repl) error { return r.restore(r.cell().Undo) }
func (c *replRedoCmd) Run(r *repl) error { return r.restore(r.cell().Redo) }

// replSnapshotsCmd is /snapshots: the list, or restore SNAP.
type replSnapshotsCmd struct {
	List    replSnapListCmd    `cmd:"" default:"1" hidden:"" help:"list this session's snapshots"`
	Restore replSnapRestoreCmd `cmd:"" name:"restore" help:"undo every snapshot down to and including SNAP"`
}

type replSnapListCmd struct{}

func (c *replSnapListCmd) Run(r *repl) error {
	l, err := r.cell().Snapshots(r.g.Ctx)
	if err != nil {
		return err
	}
	printSnapshots(r.out, r.filesAt(), l, time.Now())
	return nil
}

// replSnapRestoreCmd is /snapshots restore SNAP.
type replSnapRestoreCmd struct {
	SnapshotsRestoreCmd `embed:""`
}

func (c *replSnapRestoreCmd) Run(r *repl) error {
	full, msg := r.snapshotRef(c.Snap)
	if msg != "" {
		fmt.Fprintln(r.out, msg)
		return nil
	}
	return r.restore(func(ctx context.Context) (*engine.RestoreResult, error) { return r.cell().RestoreTo(ctx, full) })
}

// restore runs an undo, a redo or a restore and says what it did.
func (r *repl) restore(op func(context.Context) (*engine.RestoreResult, error)) error {
	res, err := op(r.g.Ctx)
	if err != nil {
		return restoreRefusal(r.filesAt(), err, "/snapshots restore")
	}
	printRestore(r.out, r.filesAt(), res)
	fmt.Fprintln(r.out, "The conversation is unchanged: tell the agent what you did.")
	return nil
}

// snapshotRef turns what /snapshots restore was given into a snapshot id:
// the # the list shows, an id, or a unique prefix of one. msg says why
// nothing was found.
func (r *repl) snapshotRef(ref string) (id, msg string) {
	l, err := r.cell().Snapshots(r.g.Ctx)
	if err != nil {
		return "", "cairn: " + userError(err)
	}
	return snapshotRef(l, ref, "/snapshots")
}

// snapshotRef finds ref in l: the # the list shows, an id, or a unique
// prefix of one. A reference that matches none is returned as it is (the
// engine names what is wrong with it); msg says why a # or a prefix names
// no snapshot or several, naming list, the command that lists them.
func snapshotRef(l *engine.SnapshotList, ref, list string) (id, msg string) {
	if strings.TrimSpace(ref) == "" {
		return "", fmt.Sprintf("No snapshot named: give the # %s shows, an id, or a unique prefix.", list)
	}
	if n, err := strconv.Atoi(strings.TrimPrefix(ref, "#")); err == nil {
		if n < 1 || n > len(l.Snapshots) {
			return "", fmt.Sprintf("No snapshot #%d: %s lists %s.", n, list, plural(len(l.Snapshots), "snapshot", "snapshots"))
		}
		return l.Snapshots[n-1].ID, ""
	}
	var found []string
	for _, s := range l.Snapshots {
		if s.ID == ref {
			return ref, ""
		}
		if strings.HasPrefix(s.ID, ref) {
			found = append(found, s.ID)
		}
	}
	switch len(found) {
	case 0:
		return ref, "" // the engine names what is wrong with it
	case 1:
		return found[0], ""
	}
	return "", fmt.Sprintf("%q starts %d snapshot ids; give more of it, or the # %s shows.", display.Line(ref), len(found), list)
}
