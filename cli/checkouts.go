package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"cairn/cli/display"
	"cairn/cli/term"
	"cairn/engine"
)

// checkoutsAnswer is `cairn sessions --all-checkouts --json`: this
// directory's sessions, then each other checkout of its repository with
// its own.
type checkoutsAnswer struct {
	Sessions  []sessionRow      `json:"sessions"`
	Checkouts []checkoutSection `json:"checkouts"`
	// Returned: sessions of removed worktrees moved back before listing.
	Returned []engine.Returned `json:"returned,omitempty"`
}

type checkoutSection struct {
	engine.Checkout
	Sessions []sessionRow `json:"sessions"`
}

// runAllCheckouts is `cairn sessions --all-checkouts`.
func (c *SessionsCmd) runAllCheckouts(g *Globals) error {
	ws, err := g.workspace()
	if err != nil {
		return err
	}
	s := ws.Store()
	returned, _ := s.ReturnFromRemovedCheckouts(g.Ctx, ws.Path())
	for _, r := range returned {
		sayReturned(g.Stderr, r)
	}
	own, problems, err := ws.List(g.Ctx)
	if err != nil {
		return err
	}
	for _, p := range problems {
		fmt.Fprintf(g.Stderr, "cairn: skipped %s: %s\n", display.Line(p.Name), display.Line(userText(p.Err)))
	}
	_, secs, err := s.OtherCheckouts(g.Ctx, ws.Path())
	if err != nil {
		return err
	}
	if g.JSON {
		a := checkoutsAnswer{Sessions: rowsOf(own), Checkouts: []checkoutSection{}, Returned: returned}
		for _, sec := range secs {
			a.Checkouts = append(a.Checkouts, checkoutSection{Checkout: sec.Checkout, Sessions: rowsOf(sec.Sessions)})
		}
		return g.PrintJSON(a)
	}
	printSessionRows(g.Stdout, own)
	for _, sec := range secs {
		fmt.Fprintf(g.Stdout, "── checkout %s ──\n", checkoutLabel(sec.Checkout))
		printSessionRows(g.Stdout, sec.Sessions)
	}
	return nil
}

func rowsOf(l []engine.Summary) []sessionRow {
	out := make([]sessionRow, 0, len(l))
	for _, e := range l {
		out = append(out, toRow(e))
	}
	return out
}

// printSessionRows prints sessions as `cairn sessions` does.
func printSessionRows(w io.Writer, l []engine.Summary) {
	now := time.Now()
	for _, e := range l {
		r := toRow(e)
		owned := ""
		if r.OwnerPID != nil {
			owned = fmt.Sprintf("  [open in pid %d]", *r.OwnerPID)
		}
		fmt.Fprintf(w, "%s  %-8s %4d %-5s  %s%s\n", r.ID, age(now, e.UpdatedAt), r.Items, itemWord(r.Items), display.Title(r.Title), owned)
	}
}

// checkoutLabel names a checkout for people: its path, branch, and whether
// it is the main one.
func checkoutLabel(c engine.Checkout) string {
	s := display.Line(c.Path)
	switch {
	case c.Branch != "":
		s += " (" + display.Line(c.Branch) + ")"
	case !c.Gone:
		s += " (detached)"
	}
	if c.Main {
		s += ", main"
	}
	if c.Gone {
		s += ", gone"
	}
	return s
}

func sayReturned(w io.Writer, r engine.Returned) {
	if len(r.Sessions) > 0 {
		fmt.Fprintf(w, "cairn: %s of the removed checkout %s moved back to %s\n", plural(len(r.Sessions), "session", "sessions"), display.Line(r.From), display.Line(r.To))
	}
	if r.Err != "" {
		fmt.Fprintf(w, "cairn: the sessions of the removed checkout %s stay there for now: %s\n", display.Line(r.From), display.Line(userText(r.Err)))
	}
}

// returnRemovedCheckouts moves the sessions of removed worktrees of this
// directory's repository back to a remaining checkout, when the REPL
// starts (best effort: it only says what it did).
func (r *repl) returnRemovedCheckouts() {
	if r.store.Ephemeral() {
		return
	}
	ret, err := r.store.ReturnFromRemovedCheckouts(r.g.Ctx, r.ws.Path())
	if err != nil {
		return
	}
	for _, x := range ret {
		sayReturned(r.errw, x)
	}
}

// checkoutRows are the other checkouts' sessions as picker rows, below
// this directory's; it remembers which checkout each belongs to.
func (r *repl) checkoutRows(ctx context.Context) []term.Row {
	if r.store.Ephemeral() {
		return nil
	}
	_, secs, err := r.store.OtherCheckouts(ctx, r.ws.Path())
	if err != nil {
		return nil
	}
	var rows []term.Row
	for _, sec := range secs {
		for i, row := range r.summaryRows(sec.Sessions) {
			row.Checkout = filepath.Base(sec.Path)
			r.mu.Lock()
			if r.checkoutOf == nil {
				r.checkoutOf = map[string]checkoutRef{}
			}
			r.checkoutOf[row.ID] = checkoutRef{sec.Checkout, sec.Sessions[i].Path}
			r.mu.Unlock()
			rows = append(rows, row)
		}
	}
	return rows
}

// checkoutRef is where a session of another checkout lives.
type checkoutRef struct {
	engine.Checkout
	dir string // the session's directory (the checkout's, or a folder in it)
}

// checkoutWorkspace is the workspace of session id when the picker listed
// it under another checkout, with the line that says cairn works there once
// the session is taken; ok is false for a session of this directory.
func (r *repl) checkoutWorkspace(id string) (ws *engine.Workspace, moved string, ok bool, err error) {
	r.mu.Lock()
	c, ok := r.checkoutOf[id]
	r.mu.Unlock()
	if !ok {
		return nil, "", false, nil
	}
	ws, err = r.store.Workspace(c.dir)
	if err != nil {
		return nil, "", true, err
	}
	return ws, fmt.Sprintf("This session belongs to the checkout %s; cairn works in %s now.", checkoutLabel(c.Checkout), display.Line(ws.Path())), true, nil
}

// resolveInCheckouts finds ref (id, prefix or title) among the sessions of
// the repository's other checkouts, for a --resume that names none of this
// directory's. It returns the error of this directory's lookup when none
// matches.
func (r *repl) resolveInCheckouts(ctx context.Context, ref string, notHere error) (string, error) {
	r.checkoutRows(ctx)
	dirs := map[string]bool{}
	r.mu.Lock()
	for _, c := range r.checkoutOf {
		dirs[c.dir] = true
	}
	r.mu.Unlock()
	found := ""
	for d := range dirs {
		ws, err := r.store.Workspace(d)
		if err != nil {
			continue
		}
		id, err := ws.Resolve(ctx, ref)
		if err != nil {
			continue
		}
		if found != "" && found != id {
			return "", fmt.Errorf("%w: %q matches sessions of several checkouts", engine.ErrAmbiguous, ref)
		}
		found = id
	}
	if found == "" {
		return "", notHere
	}
	return found, nil
}
