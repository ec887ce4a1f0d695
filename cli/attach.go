package cli

import (
	"fmt"
	"io"
	"os"
	"strconv"

	"cairn/cli/display"
	"cairn/engine"
)

// Attachments on the command line: `cairn prompt --attach FILE` (repeatable)
// and the REPL's `:attach PATH` store a file with the prompt (engine
// attach.go); `cairn attachment SESSION ITEM [N]` writes one back, byte for
// byte.

// checkAttach refuses, before anything is opened or written, a file that
// cannot be attached: missing, not a regular file, or over the cap.
func checkAttach(store *engine.Store, name string) (os.FileInfo, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, usageErrorf("--attach %s: %v", name, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, usageErrorf("--attach %s: not a regular file", name)
	}
	capMB := engine.DefaultMaxAttachmentMB
	if c, err := store.Config(); err == nil {
		capMB = c.Storage.MaxAttachmentMB
	}
	if fi.Size() > int64(capMB)<<20 {
		return nil, &engine.AttachmentTooLargeError{Name: name, Size: fi.Size(), CapMB: capMB}
	}
	return fi, nil
}

// attachFiles stores the files names as attachments of the workspace, in
// order.
func attachFiles(g *Globals, ws *engine.Workspace, names []string) ([]engine.Attachment, error) {
	var out []engine.Attachment
	for _, n := range names {
		f, err := os.Open(n)
		if err != nil {
			return nil, usageErrorf("--attach %s: %v", n, err)
		}
		a, err := ws.PutAttachment(g.Ctx, n, f)
		f.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// AttachmentCmd writes an attachment back.
type AttachmentCmd struct {
	Session string `arg:"" help:"Session (id, prefix or title)."`
	Item    string `arg:"" help:"The item: an id, N for the Nth item of the head path, or 'draft' for the draft's attachments."`
	N       int    `arg:"" optional:"" default:"1" help:"Which attachment of the item, from 1 (default 1)."`
	List    bool   `name:"list" help:"List the item's attachments rather than write one."`
}

func (c *AttachmentCmd) Run(g *Globals) error {
	ws, id, err := g.resolveSession(c.Session)
	if err != nil {
		return err
	}
	item := c.Item
	if item != engine.DraftItem {
		if _, err := strconv.Atoi(item); err == nil {
			v, err := ws.ReadLean(g.Ctx, id)
			if err != nil {
				return err
			}
			if item, err = itemArg(v.Transcript(), item); err != nil {
				return err
			}
		}
	}
	if c.List {
		as, err := ws.Attachments(g.Ctx, id, item)
		if err != nil {
			return err
		}
		if g.JSON {
			if as == nil {
				as = []engine.Attachment{}
			}
			return g.PrintJSON(as)
		}
		for i, a := range as {
			where := a.OID
			if a.LiveOnly {
				where = "live-only, from " + a.URL
			}
			fmt.Fprintf(g.Stdout, "%d  %s  %s  %d bytes  %s\n", i+1, display.Line(a.Name), display.Line(a.MediaType), a.Size, display.Line(where))
		}
		return nil
	}
	if c.N < 1 {
		return usageErrorf("attachment numbers start at 1")
	}
	if g.JSON {
		return usageErrorf("cairn attachment writes the file's bytes; use --list --json for the attachments as JSON")
	}
	_, rc, err := ws.ReadAttachment(g.Ctx, id, item, c.N)
	if err != nil {
		return err
	}
	defer rc.Close()
	// The bytes as they were attached: unescaped (g.term), never cut.
	if _, err := io.Copy(g.Term, rc); err != nil {
		return fmt.Errorf("attachment %d of %s: %w", c.N, item, err)
	}
	return nil
}
