package cli

import (
	"context"
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
	return g.runTool(t.Session, func(s *engine.Session) (*engine.ToolAnswer, error) {
		return s.ToolPatch(g.ctx, text, t.opts())
	})
}

// readPatch reads the patch in file ("-": stdin), a name relative to the
// folder the command acts in.
func (g *Globals) readPatch(file string) ([]byte, error) {
	if file == "-" {
		return io.ReadAll(g.input())
	}
	if !filepath.IsAbs(file) {
		dir, err := g.dir()
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

// patchLine readies a :patch line: the patch is the text after its first
// line (pasted, or typed with Alt+Enter), the file it names, or the lines
// that follow up to a line holding only ".". It reports false when it
// printed why there is nothing to run.
func (r *repl) patchLine(ctx context.Context, file, body string, multi bool) (func() (*engine.ToolAnswer, error), bool) {
	var text []byte
	switch {
	case multi && file != "":
		fmt.Fprintln(r.out, "Usage: :patch FILE, or :patch then the patch's lines, then a line holding only \".\"")
		return nil, false
	case multi:
		text = []byte(body)
	case file != "":
		b, err := r.g.readPatch(file)
		if err != nil {
			fmt.Fprintln(r.out, "cairn:", userError(err))
			return nil, false
		}
		text = b
	default:
		s, ok := r.readBlock()
		if !ok {
			fmt.Fprintln(r.out, "Cancelled before the line holding only \".\"; nothing was changed.")
			return nil, false
		}
		text = []byte(s)
	}
	return func() (*engine.ToolAnswer, error) { return r.sess.ToolPatch(ctx, text) }, true
}
