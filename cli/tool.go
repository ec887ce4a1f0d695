package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"cairn/cli/display"
	"cairn/engine"
)

// ToolCmd is `cairn tool [--session S] write|edit|rm|patch|exec`: the file
// tools and shell lines, each one snapshotted (seed 001).
type ToolCmd struct {
	Session string       `name:"session" placeholder:"S" help:"Session the change belongs to (default: the most recently written one, or a new one)."`
	Call    string       `name:"call" placeholder:"ITEM" help:"The tool_call (or user) item the change belongs to (default: the prompt that began the turn)."`
	Write   ToolWriteCmd `cmd:"" help:"Write PATH with the content read from stdin."`
	Edit    ToolEditCmd  `cmd:"" help:"Replace the one occurrence of OLD in PATH by NEW."`
	Rm      ToolRmCmd    `cmd:"" help:"Delete the file PATH."`
	Exec    ToolExecCmd  `cmd:"" help:"Run a shell line (sh -c) in the workspace, recording what it changes for file revert."`
	Patch   ToolPatchCmd `cmd:"" help:"Apply a patch (a git diff or a \"*** Begin Patch\" envelope) read from FILE or stdin: every file it names, or none."`
}

// ToolWriteCmd is `cairn tool write PATH`.
type ToolWriteCmd struct {
	Path string `arg:"" help:"File to write (workspace-relative, or absolute inside the workspace)."`
}

// ToolEditCmd is `cairn tool edit PATH OLD NEW`.
type ToolEditCmd struct {
	Path string `arg:"" help:"File to edit."`
	Old  string `arg:"" help:"Text to replace: it must occur exactly once (with --all, at least once)."`
	New  string `arg:"" help:"Replacement text."`
	All  bool   `name:"all" help:"Replace every occurrence of OLD."`
}

// ToolRmCmd is `cairn tool rm PATH`.
type ToolRmCmd struct {
	Path string `arg:"" help:"File to delete."`
}

func (c *ToolWriteCmd) Run(g *Globals, t *ToolCmd) error {
	b, err := io.ReadAll(g.input())
	if err != nil {
		return err
	}
	return g.runTool(t.Session, func(s toolCell) (*engine.ToolAnswer, error) {
		return s.ToolWrite(g.Ctx, c.Path, b, t.opts())
	})
}

func (c *ToolEditCmd) Run(g *Globals, t *ToolCmd) error {
	return g.runTool(t.Session, func(s toolCell) (*engine.ToolAnswer, error) {
		o := t.opts()
		o.ReplaceAll = c.All
		return s.ToolEdit(g.Ctx, c.Path, c.Old, c.New, o)
	})
}

func (c *ToolRmCmd) Run(g *Globals, t *ToolCmd) error {
	return g.runTool(t.Session, func(s toolCell) (*engine.ToolAnswer, error) {
		return s.ToolRm(g.Ctx, c.Path, t.opts())
	})
}

// opts is the file tools' options the flags give.
func (t *ToolCmd) opts() engine.ToolOptions { return engine.ToolOptions{Call: t.Call} }

// runTool runs a file tool in session ref (or the latest, or a new one),
// here or, for a session bound to a remote workspace, on its host
// session, and prints its answer.
func (g *Globals) runTool(ref string, tool func(toolCell) (*engine.ToolAnswer, error)) error {
	ws, s, err := g.toolSession(ref, g.SessionOptions())
	if re := (*engine.RemoteError)(nil); errors.As(err, &re) && ws != nil {
		return g.toolOnHost(ws, re.Session, &re.Remote, tool)
	}
	if err != nil {
		return err
	}
	defer s.Close()
	a, err := tool(s)
	if err != nil {
		return refusedLine(err)
	}
	if err := s.Close(); err != nil {
		return err
	}
	if g.JSON {
		return g.PrintJSON(a)
	}
	printToolAnswer(g.Stdout, ws, a)
	return nil
}

// toolSession opens session ref, or the most recently written one, or
// creates one: the session a plumbing tool call belongs to. A session
// bound to a remote workspace is not opened: the error is an
// *engine.RemoteError naming it, with its workspace here (with --ssh,
// every session is, or is refused).
func (g *Globals) toolSession(ref string, opts engine.SessionOptions) (*engine.Workspace, *engine.Session, error) {
	if g.SSH != "" {
		return g.toolSessionSSH(ref)
	}
	ws, err := g.workspace()
	if err != nil {
		return nil, nil, err
	}
	if ref != "" {
		rws, id, err := g.resolveSession(ref)
		if err != nil {
			return nil, nil, err
		}
		s, err := rws.Open(g.Ctx, id, opts)
		return rws, s, err
	}
	id, err := ws.Latest(g.Ctx)
	if errors.Is(err, engine.ErrNotFound) {
		return ws, ws.Create(opts), nil
	}
	if err != nil {
		return nil, nil, err
	}
	s, err := ws.Open(g.Ctx, id, opts)
	return ws, s, err
}

// printToolAnswer is the readable form of a tool's answer.
func printToolAnswer(w io.Writer, ws filesRoot, a *engine.ToolAnswer) {
	snap := "no snapshot"
	if a.Snapshot != nil {
		snap = "snapshot " + *a.Snapshot
	}
	fmt.Fprintf(w, "Changed %s (%s).\n", strings.Join(relPaths(ws, a.Files), ", "), snap)
	if len(a.Skipped) > 0 {
		fmt.Fprintf(w, "Not snapshotted, so undo cannot restore it: %s\n", strings.Join(relPaths(ws, a.Skipped), ", "))
	}
}

// filesRoot is the folder the files a tool answer names are in: the
// workspace here, or a remote workspace's folder on its host.
type filesRoot interface{ Path() string }

// relPaths shows paths inside the workspace relative to it, each for one
// line of output (display.Name: escaped, and quoted as a shell word when
// it holds a space or a shell's special character).
func relPaths(ws filesRoot, ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = display.Name(strings.TrimPrefix(p, strings.TrimSuffix(ws.Path(), "/")+"/"))
	}
	return out
}

// refusedLine turns an engine refusal into one clear line with exit 3:
// its reason, without the word "refused" that the exit code and the JSON
// code say. A refusal wrapped in more words keeps them all.
func refusedLine(err error) error {
	var re *engine.RequiredError
	var r engine.Refusal
	if errors.As(err, &r) && error(r) == err && !errors.As(err, &re) {
		return &exitError{Code: ExitRefused, Word: "refused", Err: refusalReason{r}}
	}
	return err
}

// refusalReason is a refusal that reads as its reason alone.
type refusalReason struct{ r engine.Refusal }

func (e refusalReason) Error() string { return e.r.Why() }
func (e refusalReason) Unwrap() error { return e.r }
