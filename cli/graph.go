package cli

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"cairn/cli/diffview"
	"cairn/cli/display"
	"cairn/engine"
)

// ForkCmd forks a session.
type ForkCmd struct {
	Session string `arg:"" help:"Session to fork (id, prefix or title)."`
	At      string `name:"at" placeholder:"ITEM" help:"Item to fork at: an item id, or N for the Nth item of the head path (default: the head)."`
}

func (c *ForkCmd) Run(g *Globals) error {
	ws, id, err := g.resolveSession(c.Session)
	if err != nil {
		return err
	}
	at := c.At
	if at != "" {
		v, err := ws.ReadLean(g.Ctx, id) // the ids only: works over the ceiling
		if err != nil {
			return err
		}
		if at, err = itemArg(v.Transcript(), at); err != nil {
			return err
		}
	}
	res, err := ws.Fork(g.Ctx, id, at)
	if err != nil {
		return err
	}
	if g.JSON {
		return g.PrintJSON(res)
	}
	fmt.Fprintf(g.Stdout, "%s  %s\n", res.Session, display.Line(res.Title))
	if d := draftText(res.Draft, res.DraftUnavailable); d != "" {
		fmt.Fprintf(g.Stdout, "prompt to edit: %s\n", display.Text(d))
	}
	return nil
}

// RevertCmd moves a session's head back, or reverts its recorded file
// changes (previewed unless --apply).
type RevertCmd struct {
	Session      string `arg:"" help:"Session (id, prefix or title)."`
	To           string `name:"to" required:"" placeholder:"ITEM" help:"Item to revert to (an id, or N for the Nth item of the head path): a user prompt lands before it, other items are kept."`
	Conversation bool   `name:"conversation" help:"Move the conversation head only (the default)."`
	Files        bool   `name:"files" help:"Revert the recorded file changes only (a preview unless --apply)."`
	Both         bool   `name:"both" help:"Revert the files, then the conversation (a preview unless --apply)."`
	Apply        bool   `name:"apply" help:"Run a --files or --both revert rather than preview it."`
	Diff         bool   `name:"diff" help:"With a preview, the unified diff of each file: what it holds now against what the revert would give it."`
}

func (c *RevertCmd) Run(g *Globals) error {
	mode := engine.RevertConversation
	switch {
	case c.Files && c.Both, c.Files && c.Conversation, c.Both && c.Conversation:
		return usageErrorf("choose one of --conversation, --files, --both")
	case c.Files:
		mode = engine.RevertFiles
	case c.Both:
		mode = engine.RevertBoth
	}
	if c.Apply && mode == engine.RevertConversation {
		return usageErrorf("--apply runs a --files or --both revert; a conversation revert is never previewed")
	}
	if c.Diff && (c.Apply || mode == engine.RevertConversation) {
		return usageErrorf("--diff shows what a --files or --both preview would change; leave --apply out")
	}
	preview := mode != engine.RevertConversation && !c.Apply
	ws, id, err := g.resolveSession(c.Session)
	if err != nil {
		return err
	}
	// A preview opens the session to read it, which a binding does not
	// refuse: it is looked for first.
	find := g.sshBound
	if preview {
		find = g.boundOf
	}
	bound, err := find(ws, id)
	if err != nil {
		return err
	}
	var res *engine.RevertResult
	var diffs []diffview.File
	if bound == nil {
		res, diffs, err = c.revertHere(g, ws, id, mode, preview)
		bound = refusedBound(err)
	}
	if bound != nil {
		err = g.onHost(ws, id, bound, preview, func(b *boundSession) error {
			res, diffs, err = c.revertOnHost(g, b, mode, preview)
			return err
		})
	}
	if err != nil {
		return err
	}
	if diffs != nil && c.Diff {
		w, color := g.Stdout, false
		if terminalOut(g.Term) && !noColor() {
			w, color = g.Term, true
		}
		if err := g.printRevert(w, res, "reverted", diffs, color); err != nil {
			return err
		}
		fmt.Fprintln(w)
		diffview.WriteDiff(w, diffs, color)
		return nil
	}
	return g.printRevert(g.Stdout, res, "reverted", diffs, terminalOut(g.Term) && !noColor())
}

// revertHere runs or previews the revert on session id of ws, whose
// files are here, and closes the session (durable) before it is printed.
func (c *RevertCmd) revertHere(g *Globals, ws *engine.Workspace, id string, mode engine.RevertMode, preview bool) (*engine.RevertResult, []diffview.File, error) {
	opts := g.SessionOptions()
	opts.ReadOnly = preview // a preview writes nothing: reads never need a write
	s, err := ws.Open(g.Ctx, id, opts)
	if err != nil {
		return nil, nil, err
	}
	defer s.Close()
	to, err := itemArg(s.Transcript(), c.To)
	if err != nil {
		return nil, nil, err
	}
	var res *engine.RevertResult
	if preview {
		res, err = s.PreviewRevert(g.Ctx, to, mode)
	} else {
		res, err = s.Revert(g.Ctx, to, mode)
	}
	if err != nil {
		return nil, nil, g.revertRefused(err)
	}
	var diffs []diffview.File
	if res.Preview && res.Files != nil && !g.JSON {
		diffs = revertDiffs(g.Ctx, ws.Path(), res.Files)
	}
	return res, diffs, s.Close()
}

// revertOnHost runs or previews the revert on the host session of b: a
// conversation revert moves the head here only.
func (c *RevertCmd) revertOnHost(g *Globals, b *boundSession, mode engine.RevertMode, preview bool) (*engine.RevertResult, []diffview.File, error) {
	to, err := itemArg(b.sess.Transcript(), c.To)
	if err != nil {
		return nil, nil, err
	}
	if mode == engine.RevertConversation {
		res, err := b.sess.Revert(g.Ctx, to, mode)
		return res, nil, err
	}
	res, contents, err := revertOnHost(g.Ctx, b.sess, b.hs, to, mode, !preview, diffview.Limit)
	if err != nil {
		return nil, nil, g.revertRefused(err)
	}
	var diffs []diffview.File
	if res.Preview && res.Files != nil && !g.JSON && len(contents) == len(res.Files.Files) {
		diffs = fileDiffs(b.files().Path(), contents)
	}
	return res, diffs, nil
}

// revertRefused answers a file revert or unrevert refused over conflicts:
// with --json the answer, conflicts listed, on stdout; exit 3 either way
// (the error names each conflict by kind and path).
func (g *Globals) revertRefused(err error) error {
	var ce *engine.RevertConflictError
	if !errors.As(err, &ce) || !g.JSON {
		return err
	}
	g.PrintJSON(struct {
		OK    bool               `json:"ok"`
		Code  string             `json:"code"`
		Error string             `json:"error"`
		Files *engine.FileRevert `json:"files"`
	}{false, "conflict", userError(err), ce.Files})
	return &exitError{Code: ExitRefused, Word: "conflict", Err: err, Quiet: true}
}

// printRevert prints on w what a revert or unrevert (verb: "reverted",
// "put back") did, or a preview would do; diffs, for a preview, give each
// file's lines added and removed (color: in colour).
func (g *Globals) printRevert(w io.Writer, res *engine.RevertResult, verb string, diffs []diffview.File, color bool) error {
	if g.JSON {
		return g.PrintJSON(res)
	}
	if f := res.Files; f != nil {
		printFileRevert(w, f, verb, res.Preview, diffs, color)
	}
	if res.Preview {
		fmt.Fprintln(w, "nothing was changed: run it again with --apply")
	}
	switch {
	case res.Preview && res.Head != res.From:
		fmt.Fprintf(w, "would move the head to %s (now %s)\n", orNone(res.Head), orNone(res.From))
	case res.Preview:
	case res.Head != res.From || res.Files == nil:
		fmt.Fprintf(w, "head %s (was %s)\n", orNone(res.Head), orNone(res.From))
	}
	if d := draftText(res.Draft, res.DraftUnavailable); d != "" {
		fmt.Fprintf(w, "prompt to edit: %s\n", display.Text(d))
	}
	return nil
}

// printFileRevert prints the file half of a revert or unrevert: the counts,
// then each file with what it does (or would do), and, given its diff
// (diffs, in the order of f.Files), the lines it adds and removes.
func printFileRevert(w io.Writer, f *engine.FileRevert, verb string, preview bool, diffs []diffview.File, color bool) {
	if preview {
		verb = "would revert"
	}
	fmt.Fprintf(w, "%s %s", verb, plural(len(f.Files), "file", "files"))
	if f.Create+f.Replace+f.Delete > 0 || preview {
		fmt.Fprintf(w, ": create %d, replace %d, delete %d", f.Create, f.Replace, f.Delete)
	}
	if f.UnrecordedCalls > 0 {
		fmt.Fprintf(w, "; %s ran without a record and keep their changes", plural(f.UnrecordedCalls, "call", "calls"))
	}
	fmt.Fprintln(w)
	for i, x := range f.Files {
		if i < len(diffs) {
			fmt.Fprintf(w, "  %-9s %s  %s\n", x.Action, display.Line(x.Path), diffs[i].Counts(color))
			continue
		}
		fmt.Fprintf(w, "  %-9s %s\n", x.Action, display.Line(x.Path))
	}
	for _, x := range f.Left {
		fmt.Fprintf(w, "  not written %s (%s)\n", display.Line(x.Path), x.Reason)
	}
}

// UnrevertCmd puts the files and the head back.
type UnrevertCmd struct {
	Session string `arg:"" help:"Session (id, prefix or title)."`
}

func (c *UnrevertCmd) Run(g *Globals) error {
	ws, id, err := g.resolveSession(c.Session)
	if err != nil {
		return err
	}
	bound, err := g.sshBound(ws, id)
	if err != nil {
		return err
	}
	var res *engine.RevertResult
	if bound == nil {
		res, err = unrevertHere(g, ws, id)
		bound = refusedBound(err)
	}
	if bound != nil {
		err = g.onHost(ws, id, bound, false, func(b *boundSession) (err error) {
			res, err = unrevertOnHost(g.Ctx, b.sess, b.hs)
			return err
		})
	}
	if err != nil {
		return g.revertRefused(err)
	}
	return g.printRevert(g.Stdout, res, "put back", nil, false)
}

// unrevertHere is the unrevert of session id of ws, whose files are
// here, closed (durable) before it is printed.
func unrevertHere(g *Globals, ws *engine.Workspace, id string) (*engine.RevertResult, error) {
	s, err := ws.Open(g.Ctx, id, g.SessionOptions())
	if err != nil {
		return nil, err
	}
	defer s.Close()
	res, err := s.Unrevert(g.Ctx)
	if err != nil {
		return nil, err
	}
	return res, s.Close()
}

// CompactCmd compacts a session's older stretch.
type CompactCmd struct {
	Session string `arg:"" help:"Session (id, prefix or title)."`
	Summary string `name:"summary" help:"The summary (default: a listing of the stretch's prompts)."`
	UpTo    string `name:"up-to" placeholder:"ITEM" help:"Last item to compact (default: everything before the newest prompt)."`
}

func (c *CompactCmd) Run(g *Globals) error {
	_, s, err := g.openSession(c.Session)
	if err != nil {
		return err
	}
	defer s.Close()
	upTo := c.UpTo
	if upTo != "" {
		if upTo, err = itemArg(s.Transcript(), upTo); err != nil {
			return err
		}
	}
	it, err := s.Compact(g.Ctx, c.Summary, upTo)
	if err != nil {
		return err
	}
	if err := s.Close(); err != nil {
		return err
	}
	if g.JSON {
		return g.PrintJSON(it)
	}
	fmt.Fprintf(g.Stdout, "%s  %s\n", it.ID, firstLine(it.Text))
	return nil
}

// itemArg turns an ITEM argument into an item id: an id as it is, or a
// number N for the Nth item of the head path, counting from 1. An N past
// the path names no item: not found (exit 1), as an unknown id is.
func itemArg(path []engine.Item, arg string) (string, error) {
	n, err := strconv.Atoi(arg)
	if err != nil {
		return arg, nil
	}
	if n < 1 || n > len(path) {
		return "", notFoundf("no item %d: the head path has %s", n, plural(len(path), "item", "items"))
	}
	return path[n-1].ID, nil
}

// draftText is the prompt a fork or revert hands back for editing, or the
// placeholder of one whose text could not be read back.
func draftText(draft string, gone *engine.Unavailable) string {
	if gone != nil {
		return gone.String()
	}
	return draft
}
