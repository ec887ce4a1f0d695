package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"cairn/engine"
)

// The apply_patch file tool in the plumbing (`cairn tool patch [FILE|-]`)
// and in the REPL (`:patch`, then the patch's lines up to a line holding
// only "."; or `:patch FILE`). A patch is a git diff (git diff --binary
// for binary files) or a "*** Begin Patch" envelope; it changes every file
// it names or none, and one snapshot undoes it whole.

// ToolPatchCmd is `cairn tool patch [FILE|-]`.
type ToolPatchCmd struct {
	File string `arg:"" optional:"" default:"-" help:"The patch: a git diff or a \"*** Begin Patch\" envelope; - (the default) reads stdin."`
}

func (c *ToolPatchCmd) Run(g *Globals, t *ToolCmd) error {
	text, err := g.readPatch(c.File)
	if err != nil {
		return err
	}
	return g.runTool(t.Session, func(s toolCell) (*engine.ToolAnswer, error) {
		return s.ToolPatch(g.Ctx, text, t.opts())
	})
}

// readPatch reads the patch in file ("-": stdin), a name relative to the
// folder the command acts in.
func (g *Globals) readPatch(file string) ([]byte, error) {
	if file == "-" {
		return io.ReadAll(g.input())
	}
	if !filepath.IsAbs(file) {
		dir, err := g.Dir()
		if err != nil {
			return nil, err
		}
		file = filepath.Join(dir, file)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, usageErrorf("read the patch: %v", err)
	}
	return b, nil
}

// replPatchCmd is :patch [FILE]: the patch is the text after its first
// line (pasted, or typed with Alt+Enter), the file it names, or the lines
// that follow up to a line holding only ".".
type replPatchCmd struct {
	File string `arg:"" optional:"" help:"The patch: a git diff or a \"*** Begin Patch\" envelope (left out: the lines that follow, up to a line holding only \".\")."`
}

func (c *replPatchCmd) Run(r *repl, l *replLine) error {
	var text []byte
	switch {
	case l.multi && c.File != "":
		return usageErrorf(":patch takes FILE or the patch's lines, not both; nothing was changed")
	case l.multi:
		text = []byte(l.body)
	case c.File != "":
		b, err := r.g.readPatch(c.File)
		if err != nil {
			return err
		}
		text = b
	default:
		s, ok := r.readBlock()
		if !ok {
			fmt.Fprintln(r.out, "Cancelled before the line holding only \".\"; nothing was changed.")
			return nil
		}
		text = []byte(s)
	}
	return r.runTool(l.ctx, func() (*engine.ToolAnswer, error) { return r.cell().ToolPatch(l.ctx, text) })
}
