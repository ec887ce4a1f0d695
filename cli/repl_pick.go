package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	xterm "golang.org/x/term"

	"cairn/cli/cmdbase"
	"cairn/cli/display"
	"cairn/cli/term"
	"cairn/engine"
)

// The resume picker as the REPL runs it: at `cairn --resume`, for a
// `--resume NAME` that names several sessions, and for /resume.

// pickOptions say what a picker lists.
type pickOptions struct {
	// every: start with the sessions of every directory (--all).
	every bool
	// only, when not nil, are the rows to choose from (the sessions a
	// name matched), said by heading; else this directory's sessions.
	only    []term.Row
	heading string
}

// errPickInterrupted: the picker was left with Ctrl-C; cairn exits as a
// program stopped by SIGINT does.
var errPickInterrupted = &exitError{Code: 128 + 2, Word: "interrupted", Err: errors.New("interrupted: no session was resumed")}

// pick shows the picker (or, without a terminal, a numbered list) and
// returns the row chosen.
//
// On a terminal the first screen does not wait for the listing: it is drawn
// from the first page of the picker index as last saved (Workspace.ListHead),
// and the whole listing (List: the records verified, damaged ones left out,
// dead owners settled) replaces it when it is ready. A choice is always a
// session of the whole listing (term.PickListing), and a session the
// listing skipped as unreadable is named once the picker is closed.
//
// Typed on a terminal whose output goes elsewhere (`cairn --resume >
// file`, `| tee log`), the picker would draw into the file and leave the
// screen blank while it waits for keys: it is refused instead, saying
// how to resume by name. Output that is not a file at all (a program
// embedding cairn) is taken for the terminal's.
func (r *repl) pick(o pickOptions) (term.Row, error) {
	if f := stdinTerminal(r.g); f != nil {
		if out, ok := r.g.Term.(*os.File); ok && !xterm.IsTerminal(int(out.Fd())) {
			return term.Row{}, usageErrorf("the picker is drawn on the terminal, and this output goes elsewhere (a file or a pipe): " +
				"name the session (cairn --resume ID; cairn sessions lists them), or run cairn --resume with its output on the terminal")
		}
		return r.pickTerminal(f, o)
	}
	rows := o.only
	if rows == nil {
		var problems []string
		var err error
		if o.every {
			rows, err = r.everyRows(r.g.Ctx)
		} else {
			rows, problems, err = r.listRows(r.g.Ctx)
		}
		if err != nil {
			return term.Row{}, err
		}
		r.noticeProblems(problems)
	}
	if len(rows) == 0 {
		return term.Row{}, r.noSessions()
	}
	if o.heading != "" {
		fmt.Fprintln(r.out, o.heading)
	}
	i, err := term.PickPlain(r.lineReader(), r.out, rows)
	if err != nil {
		return term.Row{}, err
	}
	return rows[i], nil
}

// lineReader is the reader of the lines typed without a terminal: one for
// the pickers and the REPL after them, so the number read does not swallow
// the lines that follow.
func (r *repl) lineReader() *bufio.Reader {
	if r.lines == nil {
		r.lines = bufio.NewReader(r.in)
	}
	return r.lines
}

// pickRow picks one of l's rows: the picker on a terminal, else a
// numbered list under l's heading.
func (r *repl) pickRow(l term.Listing) (term.Row, error) {
	f := stdinTerminal(r.g)
	if f == nil {
		fmt.Fprintln(r.out, l.Heading)
		i, err := term.PickPlain(r.lineReader(), r.out, l.Rows)
		if err != nil {
			return term.Row{}, err
		}
		return l.Rows[i], nil
	}
	keys, err := r.keysOf(f)
	if err != nil {
		return term.Row{}, err
	}
	return r.pickOnTerminal(keys, l)
}

// pickOnTerminal runs the picker over l. A signal ends it first, so the
// terminal is handed back (repl_signal.go).
func (r *repl) pickOnTerminal(keys *term.Keys, l term.Listing) (term.Row, error) {
	ctx, cancel := context.WithCancel(r.g.Ctx)
	defer cancel()
	done := make(chan struct{})
	r.open.setPicker(func() { cancel(); <-done })
	defer func() {
		close(done)
		r.open.setPicker(nil)
	}()
	return term.PickListing(ctx, keys, r.g.Term, l)
}

// headRows is how many rows of the index the picker's first screen reads:
// more than a terminal has lines.
const headRows = 200

func (r *repl) pickTerminal(f *os.File, o pickOptions) (term.Row, error) {
	ctx := r.g.Ctx
	var problems []string
	l := term.Listing{Preview: r.preview, Heading: o.heading}
	if !r.store.Ephemeral() {
		l.Rename, l.Every, l.StartEvery = r.renameRow, r.everyRows, o.every
	}
	switch {
	case o.only != nil:
		l.Rows = o.only
	default:
		l.Refresh = func(ctx context.Context) ([]term.Row, error) {
			rows, p, err := r.listRows(ctx)
			problems = p
			return rows, err
		}
		if head, total, ok := r.ws.ListHead(ctx, headRows); ok && len(head) > 0 {
			l.Rows, l.Total = r.summaryRows(head), total
		} else {
			rows, err := l.Refresh(ctx)
			if err != nil {
				return term.Row{}, err
			}
			l.Rows, l.Refresh = rows, nil
		}
	}
	if len(l.Rows) == 0 && o.every && l.Every != nil {
		// Nothing here, but --all asked for every directory.
		rows, err := r.everyRows(ctx)
		if err != nil {
			return term.Row{}, err
		}
		l.Rows, l.Refresh, l.Every = rows, nil, nil
	}
	if len(l.Rows) == 0 {
		r.noticeProblems(problems)
		return term.Row{}, r.noSessions()
	}
	keys, err := r.keysOf(f)
	if err != nil {
		return term.Row{}, err
	}
	row, err := r.pickOnTerminal(keys, l)
	r.noticeProblems(problems) // the refresh has ended: PickListing waits for it
	if errors.Is(err, term.ErrNoRows) {
		return term.Row{}, r.noSessions()
	}
	return row, err
}

// resolveOrPick resolves ref (an id, a unique id prefix or an exact title)
// among this directory's sessions, then the repository's other checkouts'.
// When it names several, the picker opens on just those.
func (r *repl) resolveOrPick(ref string) (term.Row, error) {
	ctx := r.g.Ctx
	id, err := r.ws.Resolve(ctx, ref)
	if errors.Is(err, engine.ErrNotFound) {
		id, err = r.resolveInCheckouts(ctx, ref, err)
	}
	if errors.Is(err, engine.ErrAmbiguous) {
		rows, lerr := r.matchingRows(ctx, ref)
		if lerr != nil || len(rows) < 2 {
			return term.Row{}, err
		}
		return r.pick(pickOptions{only: rows, heading: fmt.Sprintf("%d sessions match %q; choose one:", len(rows), ref)})
	}
	if err != nil {
		return term.Row{}, notHere(ctx, r.store, r.ws, err, ref)
	}
	return term.Row{ID: id}, nil
}

// matchingRows are the sessions a reference names as Resolve reads it: an
// id it starts (any case) or a title it equals, here and in the other
// checkouts of the repository.
func (r *repl) matchingRows(ctx context.Context, ref string) ([]term.Row, error) {
	ref = strings.TrimSpace(ref)
	rows, _, err := r.listRows(ctx)
	if err != nil {
		return nil, err
	}
	lower := strings.ToLower(ref)
	return slices.DeleteFunc(rows, func(row term.Row) bool {
		return !strings.HasPrefix(strings.ToLower(row.ID), lower) && row.Title != ref
	}), nil
}

// keysOf returns the keyboard of terminal f, opened the first time: the
// picker and the prompts after it share it, so that what is typed after the
// Enter that ends one reaches the next (closeKeys closes it).
func (r *repl) keysOf(f *os.File) (*term.Keys, error) {
	if r.keys == nil {
		k, err := term.OpenKeys(f)
		if err != nil {
			return nil, err
		}
		// Between prompts the terminal does not echo: what is typed while
		// a command runs waits for the next prompt instead of showing in
		// the command's output.
		if err := k.Quiet(); err != nil {
			k.Close()
			return nil, err
		}
		r.keys = k
		r.open.setKeys(k)
	}
	return r.keys, nil
}

// closeKeys closes the keyboard, if opened, restoring the terminal's mode.
func (r *repl) closeKeys() {
	if r.keys != nil {
		r.keys.Close()
	}
}

// listRows is the whole listing as picker rows, with the names of the
// records skipped as unreadable.
func (r *repl) listRows(ctx context.Context) ([]term.Row, []string, error) {
	restore := cmdbase.BurstGC()
	l, problems, err := r.ws.List(ctx)
	restore()
	if err != nil {
		return nil, nil, err
	}
	var names []string
	for _, p := range problems {
		names = append(names, p.Name)
	}
	// The sessions of the repository's other checkouts come below.
	rows := append(r.summaryRows(l), r.checkoutRows(ctx)...)
	if len(rows) == 0 {
		return nil, names, nil
	}
	return rows, names, nil
}

// everyRows lists the sessions of every directory, newest first, each row
// with its directory; it remembers which workspace each belongs to, for
// resuming and renaming one (rowWorkspace).
func (r *repl) everyRows(ctx context.Context) ([]term.Row, error) {
	restore := cmdbase.BurstGC()
	defer restore()
	wss, _, err := r.store.Workspaces()
	if err != nil {
		return nil, err
	}
	var sums []engine.Summary
	of := map[string]*engine.Workspace{}
	for _, ws := range wss {
		l, _, err := ws.List(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			continue // a directory that cannot be listed now is left out
		}
		for _, e := range l {
			of[e.ID] = ws
		}
		sums = append(sums, l...)
	}
	r.store.SortSummaries(sums)
	rows := r.summaryRows(sums)
	for i := range rows {
		if ws := of[rows[i].ID]; ws != nil {
			rows[i].Dir = ws.Path()
		}
	}
	r.mu.Lock()
	r.everyWS = of
	r.mu.Unlock()
	return rows, nil
}

// rowWorkspace is the workspace a picker row's session belongs to: this
// directory's, another checkout's, or, in the listing of every directory,
// the one that listed it.
func (r *repl) rowWorkspace(id string) (*engine.Workspace, error) {
	if ws, _, ok, err := r.checkoutWorkspace(id); ok {
		return ws, err
	}
	r.mu.Lock()
	ws := r.everyWS[id]
	r.mu.Unlock()
	if ws != nil {
		return ws, nil
	}
	return r.ws, nil
}

func (r *repl) noticeProblems(names []string) {
	for _, n := range names {
		r.notice(fmt.Sprintf("skipped unreadable record %s", n))
	}
}

// noSessions says there is nothing to resume here, and how to start.
func (r *repl) noSessions() error {
	return fmt.Errorf("%w: no sessions in %s yet; run cairn without --resume to start one (cairn --resume --all lists every directory's)", engine.ErrNotFound, r.ws.Path())
}

// summaryRows are sessions as picker rows; the session open here is marked.
func (r *repl) summaryRows(l []engine.Summary) []term.Row {
	rows := make([]term.Row, len(l))
	now := time.Now()
	cur := ""
	if r.sess != nil {
		cur = r.sess.ID()
	}
	for i, e := range l {
		rows[i] = term.Row{ID: e.ID, Title: e.Title, Age: age(now, e.UpdatedAt), Branch: e.Branch, Items: e.Items,
			Owner: e.OwnerPID, ForkOf: e.ForkOf, Current: e.ID == cur, Remote: e.Remote}
	}
	return rows
}

// previewTurns is how many of a session's last turns the picker previews.
const previewTurns = 3

// preview is the picker's preview of a session: its last prompts on the
// head path with the answer each got (the last assistant item before the
// next prompt), and the files its change records name, newest first. It
// reads without taking the session, and streams (ReadLean, then the texts
// of the few items shown), so a session over the eager-load ceiling is
// previewed like any other and none is hydrated for a preview.
func (r *repl) preview(row term.Row) term.Preview {
	ctx := r.g.Ctx
	ws, err := r.rowWorkspace(row.ID)
	if err != nil {
		return term.Preview{Text: "(" + userError(err) + ")"}
	}
	v, err := ws.ReadLean(ctx, row.ID)
	if err != nil {
		return term.Preview{Text: "(" + userError(err) + ")"}
	}
	t := v.Transcript()
	var p term.Preview
	end := len(t)
	for i := len(t) - 1; i >= 0 && len(p.Turns) < previewTurns; i-- {
		if t[i].Type != engine.User {
			continue
		}
		turn := term.PreviewTurn{Prompt: r.itemText(v, t[i])}
		for j := end - 1; j > i; j-- {
			if t[j].Type == engine.Assistant {
				turn.Answer = r.itemText(v, t[j])
				break
			}
		}
		p.Turns = append([]term.PreviewTurn{turn}, p.Turns...)
		end = i
	}
	if len(p.Turns) == 0 {
		p.Text = "(no prompt yet)"
	}
	p.Files = changedFiles(ctx, ws, row.ID)
	return p
}

// itemText is an item's text for the preview, or why it cannot be read.
func (r *repl) itemText(v *engine.View, it engine.Item) string {
	full, err := v.ItemText(r.g.Ctx, it.ID)
	if err != nil {
		return "(" + userError(err) + ")"
	}
	return full.Text
}

// changedFiles are the paths session id's change records name (its
// snapshots and the records of its shell lines), newest first, each once,
// relative to the workspace.
func changedFiles(ctx context.Context, ws *engine.Workspace, id string) []string {
	l, err := ws.Snapshots(ctx, id)
	if err != nil {
		return nil
	}
	type rec struct {
		at    time.Time
		files []engine.SnapshotFile
	}
	var recs []rec
	for _, s := range l.Snapshots {
		recs = append(recs, rec{s.At.Time, s.Files})
	}
	for _, c := range l.Records {
		recs = append(recs, rec{c.At.Time, c.Files})
	}
	slices.SortStableFunc(recs, func(a, b rec) int { return b.at.Compare(a.at) })
	var out []string
	seen := map[string]bool{}
	root := strings.TrimSuffix(ws.Path(), "/") + "/"
	for _, c := range recs {
		for _, f := range c.files {
			p := strings.TrimPrefix(f.Path, root)
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// renameRow renames the session of a picker row: the one open here through
// its own handle, any other by taking it for the rename (a session open in
// another process is busy, and says so).
func (r *repl) renameRow(ctx context.Context, row term.Row, name string) (string, error) {
	if r.sess != nil && row.ID == r.sess.ID() {
		if err := r.sess.Rename(ctx, name); err != nil {
			return "", errors.New(userError(err))
		}
		return r.sess.Record().Title, nil
	}
	ws, err := r.rowWorkspace(row.ID)
	if err != nil {
		return "", errors.New(userError(err))
	}
	s, err := ws.Open(ctx, row.ID, engine.SessionOptions{})
	if err != nil {
		return "", errors.New(userError(err))
	}
	err = s.Rename(ctx, name)
	title := s.Record().Title
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", errors.New(userError(err))
	}
	return title, nil
}

// replResumeCmd is /resume [NAME]: the picker (or the session NAME
// names), then the chosen session in place of this one, which is closed
// first and stays resumable.
type replResumeCmd struct {
	Name string `arg:"" optional:"" help:"The session to switch to: an id, a unique prefix of one, or a title (left out: the picker)."`
}

func (c *replResumeCmd) Run(r *repl) error {
	var row term.Row
	var err error
	if c.Name == "" {
		row, err = r.pick(pickOptions{})
	} else {
		row, err = r.resolveOrPick(c.Name)
	}
	switch {
	case errors.Is(err, term.ErrCancelled), errors.Is(err, term.ErrInterrupted):
		fmt.Fprintln(r.out, "No session chosen; this one goes on.")
		return nil
	case err != nil:
		return err
	case r.sess != nil && row.ID == r.sess.ID():
		fmt.Fprintln(r.out, "That is this session; it goes on.")
		return nil
	}
	return r.switchTo(row.ID)
}

// switchTo opens session id and closes the current one for it. The new one
// is opened first: when it cannot be (another process has it), the
// current one goes on.
func (r *repl) switchTo(id string) error {
	s, ws, moved, err := r.openFor(id)
	if err != nil {
		return err
	}
	if prev, ok := r.closeSession(); ok {
		fmt.Fprintf(r.out, "The previous session stays resumable: cairn --resume %s\n", prev)
	}
	r.pendingName, r.revertPreview = "", ""
	r.attachPaths, r.attachReady = nil, nil
	if moved != "" {
		r.ws = ws
		fmt.Fprintln(r.out, moved)
	}
	r.adopt(s)
	return nil
}

// openFor opens session id where it belongs: this directory, another
// checkout of the repository, or (listed from every directory) another
// directory. It changes nothing of the REPL's: moved, when not "", says
// that cairn works in ws once the session is taken.
func (r *repl) openFor(id string) (s *engine.Session, ws *engine.Workspace, moved string, err error) {
	ws = r.ws
	if cws, line, ok, err := r.checkoutWorkspace(id); ok {
		if err != nil {
			return nil, nil, "", err
		}
		ws, moved = cws, line
	} else {
		r.mu.Lock()
		ews := r.everyWS[id]
		r.mu.Unlock()
		if ews != nil && ews.Path() != r.ws.Path() {
			ws = ews
			moved = fmt.Sprintf("This session belongs to %s; cairn works there now.", display.Line(ws.Path()))
		}
	}
	if err := r.remoteMatch(ws, id); err != nil {
		return nil, nil, "", err
	}
	s, err = ws.Open(r.g.Ctx, id, r.opts())
	if err != nil {
		return nil, nil, "", err
	}
	return s, ws, moved, nil
}
