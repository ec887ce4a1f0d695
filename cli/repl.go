package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/alecthomas/kong"

	"cairn/cli/cmdbase"
	"cairn/cli/display"
	"cairn/cli/term"
	"cairn/engine"
	"cairn/httpapi"
)

// repl is one run of the line REPL: a session in the current directory,
// lines read from a terminal (with a line editor) or from a pipe.
type repl struct {
	g           *Globals
	in          io.Reader
	out, errw   io.Writer
	noSnapshots bool
	leader      string // the leader key, "" for the default

	store   *engine.Store // a throwaway temporary root when the state folder cannot be used
	ws      *engine.Workspace
	sess    *engine.Session
	open    openSession // sess, for the signal handler (repl_signal.go)
	noticed string      // the last notice shown
	// draft is the prompt a fork or revert handed back, put in the input
	// line when the editor starts (offerDraft).
	draft string
	// attachPaths are files `:attach` named for the next prompt;
	// attachReady, the attachments a draft handed back (repl_attach.go).
	attachPaths []string
	attachReady []engine.Attachment
	// pendingName is a /rename given before the session held anything: it
	// is applied with the first prompt, so a name alone writes nothing.
	pendingName string
	// revertPreview is the /revert line of files or both last previewed:
	// the same line again runs it; any other revert or an unrevert drops it.
	revertPreview string
	live          *httpapi.Live // the HTTP API of this session (--listen), nil when not served
	rc            remoteState   // the remote workspace the file side runs on (repl_remote.go)
	// checkoutOf: the sessions the picker listed under another checkout
	// of this directory's repository (checkouts.go); everyWS: the
	// workspace of each session the picker listed from every directory
	// (repl_pick.go). The picker's listings write them in the background,
	// under mu.
	mu         sync.Mutex
	checkoutOf map[string]checkoutRef
	everyWS    map[string]*engine.Workspace

	// keys is the terminal's keyboard, one for the picker and every
	// prompt, so that keys typed ahead of a prompt are not lost (keysOf).
	keys  *term.Keys
	ed    *term.Editor
	lines *bufio.Reader

	// cmds is what the REPL's parser (kong) parses a command line into;
	// kongExited, that kong asked to exit (after --help) instead.
	cmds       replCLI
	kong       *kong.Kong
	kongExited bool

	bg replBG // background work and messages (repl_background.go)

	// turnHook, set only by tests, is the work of a prompt's turn: it runs
	// with the turn's context after the prompt is recorded, before the turn
	// ends (a test makes it wait for the context to end).
	turnHook func(ctx context.Context, text string) error
	// sweepHook, set only by tests, runs after each background sweep
	// (repl_sweep.go).
	sweepHook func()
}

// helpKeys ends /help; LEADER is the leader key.
const helpKeys = `A line starting with // is sent as a prompt starting with /.
Keys: Alt+Enter (or Ctrl-J) starts a new line and Tab types a tab; Up and Down walk the history, Ctrl-R searches it; Ctrl-K, Ctrl-U and Ctrl-W cut, Ctrl-Y puts back; Ctrl-L clears the screen; Ctrl-Z suspends (fg resumes); LEADER then e edits the line in $VISUAL or $EDITOR; Alt+Z, Alt+R and F9 (or LEADER then z, r or p) run /undo, /redo and /snapshots; Ctrl-C clears the line.
`

// helpText is /help for a window width cells wide (0: not a terminal):
// each command with what it does beside it, or below it when the window is
// too narrow for two columns or the command too long for the first.
func helpText(width int, leader string) string {
	const col = 17 // where the second column starts
	stacked := width > 0 && width-1-col < minColumn
	var b strings.Builder
	b.WriteString("Type a prompt and press Enter. Commands:\n")
	for _, e := range helpEntries() {
		switch {
		case stacked:
			fmt.Fprintf(&b, "  %s\n      %s\n", e[0], e[1])
		case len(e[0]) < col-3:
			fmt.Fprintf(&b, "  %-*s%s\n", col-2, e[0], e[1])
		default:
			fmt.Fprintf(&b, "  %s\n%*s%s\n", e[0], col, "", e[1])
		}
	}
	b.WriteString(strings.ReplaceAll(helpKeys, "LEADER", leader))
	return fitText(b.String(), width)
}

// openStore opens the state folder. When it cannot be used (a missing home,
// a full disk, a newer format), the REPL still runs, unrecorded, and says so.
func (r *repl) openStore() error {
	g := r.g
	// What ephemeral runs that died (kill -9, a power loss) left goes now,
	// once its owner's lock proves it dead.
	if _, err := engine.SweepEphemeral(cmdbase.StoreOptions()...); err != nil {
		r.notice(err.Error())
	}
	home := g.Home
	if home == "" {
		h, err := cmdbase.DefaultHome()
		if err != nil {
			r.notice(err.Error() + "; this session is not recorded")
		}
		home = h
	}
	dir, err := g.Dir()
	if err != nil {
		return err
	}
	var s *engine.Store
	if home != "" {
		s, err = g.OpenHome(home)
	}
	if err != nil {
		r.notice(fmt.Sprintf("%v; this session is not recorded", err))
		s = nil
	}
	if s == nil {
		// A private throwaway root keeps the engine's in-memory session
		// working; nothing in it is kept.
		if s, err = engine.OpenEphemeral("", cmdbase.StoreOptions()...); err != nil {
			return err
		}
	}
	for _, u := range s.Unrecovered() {
		r.notice(u.Error())
	}
	ws, err := s.Workspace(dir)
	if err != nil {
		s.Close()
		return err
	}
	for _, n := range []string{ws.Repaired(), ws.Note()} {
		if n != "" {
			r.notice(n)
		}
	}
	r.open.mu.Lock()
	r.store, r.ws, r.open.store = s, ws, s
	r.open.mu.Unlock()
	return nil
}

func (r *repl) closeStore() {
	r.closeSession()
	if r.ed != nil {
		r.ed.Close()
	}
	// Under the signal handler's lock: the store is closed once, by this
	// or by the handler, never by both.
	r.open.mu.Lock()
	defer r.open.mu.Unlock()
	if r.open.store != nil {
		if err := r.open.store.Close(); err != nil {
			r.notice(err.Error())
		}
		r.open.store = nil
		r.g.Store = nil
	}
}

func (r *repl) opts() engine.SessionOptions {
	return engine.SessionOptions{Degrade: true, Notice: r.notice, Ephemeral: r.store.Ephemeral(), NoSnapshots: r.noSnapshots, Watch: true,
		Remote: r.rc.client != nil}
}

func (r *repl) startNew() {
	r.sess, r.pendingName = r.ws.Create(r.opts()), ""
	r.attachPaths, r.attachReady = nil, nil
	r.open.set(r.sess)
	r.remoteOpen()
}

// resume opens session id and says what changed since it last ran.
func (r *repl) resume(id string) error {
	s, ws, moved, err := r.openFor(id)
	if err != nil {
		return err
	}
	if moved != "" {
		r.ws = ws
		fmt.Fprintln(r.out, moved)
	}
	r.adopt(s)
	return nil
}

// adopt makes s, just opened, the REPL's session, and says what changed
// since it last ran.
func (r *repl) adopt(s *engine.Session) {
	r.sess = s
	r.open.set(s)
	r.remoteOpen()
	rec := s.Record()
	info := s.Resume()
	if rec.Title == "" {
		fmt.Fprintf(r.out, "Resumed an untitled session (%s).\n", plural(rec.Counts.Items, "item", "items"))
	} else {
		fmt.Fprintf(r.out, "Resumed %q (%s).\n", rec.Title, plural(rec.Counts.Items, "item", "items"))
	}
	if info.Repaired > 0 {
		fmt.Fprintf(r.out, "The session's last line was torn by a crash; %d bytes were cut and every complete item kept.\n", info.Repaired)
	}
	if info.BranchBefore != "" && info.BranchBefore != info.Branch {
		fmt.Fprintf(r.out, "Note: the branch changed from %s to %s.\n", display.Line(info.BranchBefore), display.Line(orNone(info.Branch)))
	}
	if info.BuildBefore != "" && info.BuildBefore != info.Build {
		fmt.Fprintf(r.out, "Note: this session was recorded by cairn %s; this is cairn %s.\n", info.BuildBefore, info.Build)
	}
	// info.AskTrust (a record from before trust maps) is not mentioned:
	// the line REPL runs no tools that ask a trust question, so there is no
	// question to announce.
	// The draft a fork or revert handed back waits for editing.
	if d, gone, err := s.Draft(r.g.Ctx); err == nil {
		r.offerDraft(d, gone)
	}
	r.offerDraftAttachments()
}

// offerDraft hands the prompt a fork or revert gave back to the person: in
// the input line when there is a line editor (now, or once it starts), else
// printed. A draft whose text is gone is only said.
func (r *repl) offerDraft(d string, gone *engine.Unavailable) {
	t := draftText(d, gone)
	if t == "" {
		return
	}
	if gone == nil && r.ed != nil {
		r.ed.Prefill(d)
		fmt.Fprintln(r.out, "The prompt to edit is in the input line.")
		return
	}
	if gone == nil && stdinTerminal(r.g) != nil {
		r.draft = d // the editor starts after resume
		return
	}
	fmt.Fprintf(r.out, "Prompt to edit: %s\n", display.Text(t))
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// closeSession ends the current session. It reports whether a record was
// written, so the caller can print the resume line.
func (r *repl) closeSession() (string, bool) {
	if r.sess == nil {
		return "", false
	}
	r.remoteClose()
	s := r.sess
	r.sess = nil
	if _, shells := s.Running(); shells > 0 {
		r.sayClosingJobs(s, shells)
	}
	r.open.mu.Lock() // a signal arriving now waits for this close
	err := s.Close()
	r.open.sess = nil
	r.open.mu.Unlock()
	if err != nil {
		r.notice(err.Error())
	}
	return s.ID(), s.Recorded() && !r.store.Ephemeral()
}

// loop reads lines until /exit or end of input, then prints the resume line
// after the terminal is handed back.
func (r *repl) loop() error {
	defer r.startSweep(sweepFirst)() // cli/repl_sweep.go
	if f := stdinTerminal(r.g); f != nil {
		keys, err := r.keysOf(f)
		if err != nil {
			return err
		}
		ed := term.NewEditor(keys, r.g.Term, editorHistory(r.store.History()))
		r.ed = ed
		r.open.setEditor(ed)
		if r.leader != "" {
			ed.SetLeader(r.leader)
		}
		r.bindSnapshotKeys()
		r.bindRewindKeys() // repl_rewind.go
		r.bindShellKeys()  // repl_background.go
		r.banner()
		if r.draft != "" {
			ed.Prefill(r.draft)
			r.draft = ""
			fmt.Fprintln(r.out, "The prompt to edit is in the input line.")
		}
	} else if r.lines == nil {
		r.lines = bufio.NewReader(r.in)
	}
	for {
		r.watchBackground()
		r.setIdle(true)
		line, err := r.readLineServing()
		r.setIdle(false)
		if r.ed != nil && r.ed.Used() {
			r.dropDraft()
			if err == nil && isCommandLine(line) {
				r.ed.AddHistory(line)
			}
		}
		if errors.Is(err, term.ErrInterrupted) {
			continue
		}
		if err != nil {
			break
		}
		ctx, stop := r.lineContext()
		done := r.handle(ctx, line)
		stop()
		if done {
			break
		}
		// Idle until the next line: the record catches up with the
		// turns the engine's refresh interval left out of it, for
		// `cairn sessions` and pickers elsewhere.
		if r.sess != nil {
			r.sess.RefreshRecord()
		}
	}
	if r.ed != nil {
		r.open.setEditor(nil)
		r.ed.Close()
		r.ed = nil
	}
	if id, ok := r.closeSession(); ok {
		fmt.Fprintf(r.out, "cairn --resume %s\n", id)
	}
	return nil
}

// dropDraft clears the session's draft once the person is done with the
// input line it was put in: sent, or cleared (Ctrl-C, or emptied and left
// with Ctrl-D). It is not handed back again on the next resume.
func (r *repl) dropDraft() {
	if r.sess == nil {
		return
	}
	if err := r.sess.SetDraft(r.g.Ctx, ""); err != nil {
		r.notice(fmt.Sprintf("the draft was not cleared: %v", userError(err)))
	}
}

// banner is the first line a person sees: which session this is, where it
// is recorded, and that /help lists the commands.
func (r *repl) banner() {
	where := "not recorded (--ephemeral, or the state folder cannot be used)"
	if !r.store.Ephemeral() {
		if loc, err := r.store.Where(r.ws.Path()); err == nil && loc.Folder != "" {
			where = "recorded in " + display.Line(loc.Folder)
			if !r.sess.Recorded() {
				where += " once it holds a prompt"
			}
		}
	}
	fmt.Fprintf(r.out, "cairn session %s, %s. /help lists commands; Ctrl-D leaves.\n", r.sess.ID(), where)
}

func (r *repl) readLine() (string, error) {
	if r.ed != nil {
		return r.ed.ReadLine(r.promptLine())
	}
	line, err := r.lines.ReadString('\n')
	if err != nil && (line == "" || !errors.Is(err, io.EOF)) {
		return "", err
	}
	return strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r"), nil
}

// handle runs one line; it reports whether the REPL should end. A blank
// line records nothing; "//text" is the prompt "/text"; a "/", ":" or "!"
// line is a command (repl_grammar.go), never sent. A prompt's turn and a
// file tool run with ctx: Ctrl-C cancels them (repl_cancel.go).
func (r *repl) handle(ctx context.Context, line string) bool {
	switch {
	case strings.TrimSpace(line) == "":
		return false
	case strings.HasPrefix(strings.TrimSpace(line), "//"):
		r.prompt(ctx, strings.TrimPrefix(strings.TrimLeft(line, " \t"), "/"))
		return false
	case isCommandLine(line):
		return r.command(ctx, line)
	}
	r.prompt(ctx, line)
	return false
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// replRenameCmd is /rename NAME. A name given before the session holds
// anything is applied with the first prompt, so a name alone writes
// nothing.
type replRenameCmd struct {
	Name string `arg:"" help:"The new title (the rest of the line)."`
}

func (c *replRenameCmd) Run(r *repl) error {
	if strings.TrimSpace(c.Name) == "" {
		fmt.Fprintln(r.out, "A session name cannot be empty.")
		return nil
	}
	if !r.sess.Recorded() && len(r.sess.Transcript()) == 0 {
		r.pendingName = engine.NameLine(c.Name)
		fmt.Fprintf(r.out, "The session will be named %q once it holds a prompt.\n", r.pendingName)
		return nil
	}
	if err := r.sess.Rename(r.g.Ctx, c.Name); err != nil {
		return err
	}
	fmt.Fprintf(r.out, "Renamed to %q.\n", r.sess.Record().Title)
	return nil
}

// replClearCmd is /clear (and /new): a new session here.
type replClearCmd struct{}

func (c *replClearCmd) Run(r *repl) error {
	if id, ok := r.closeSession(); ok {
		fmt.Fprintf(r.out, "The previous session stays resumable: cairn --resume %s\n", id)
	}
	r.startNew()
	fmt.Fprintln(r.out, "New session.")
	return nil
}

// replHistoryCmd is /history.
type replHistoryCmd struct{}

func (c *replHistoryCmd) Run(r *repl) error {
	printHistory(r.out, r.store.History())
	return nil
}

// leaderName is the leader key as /help names it.
func (r *repl) leaderName() string {
	switch r.leader {
	case "", term.DefaultLeader:
		return "Ctrl-X"
	}
	return r.leader
}

// historyShown is how many lines of one entry /history shows.
const historyShown = 5

// printHistory lists the prompt history, oldest first, numbered: every
// line of a prompt of several lines, up to historyShown of them and a
// count of the rest.
func printHistory(w io.Writer, h []string) {
	for i, e := range h {
		lines := strings.Split(e, "\n")
		for j, l := range lines[:min(len(lines), historyShown)] {
			if j == 0 {
				fmt.Fprintf(w, "%4d  %s\n", i+1, display.Line(l))
			} else {
				fmt.Fprintf(w, "      %s\n", display.Line(l))
			}
		}
		if n := len(lines) - historyShown; n == 1 {
			fmt.Fprintln(w, "      … (1 more line)")
		} else if n > 1 {
			fmt.Fprintf(w, "      … (%d more lines)\n", n)
		}
	}
}

// editorHistory is the prompt history as the line editor recalls it: a
// prompt that starts with / was typed with //, and is recalled so, to send
// it again as a prompt rather than run a command.
func editorHistory(h []string) []string {
	out := make([]string, len(h))
	for i, e := range h {
		if strings.HasPrefix(strings.TrimLeft(e, " \t"), "/") {
			e = "/" + e
		}
		out[i] = e
	}
	return out
}

// isCommandLine reports whether line is a slash command, a tool line or a
// shell line: typed at the prompt, it goes into the editor's history for
// this run (Up brings back a previewed /revert to run it).
func isCommandLine(line string) bool {
	t := strings.TrimSpace(line)
	switch {
	case strings.HasPrefix(t, "//"):
		return false
	case strings.HasPrefix(t, "/"), strings.HasPrefix(t, "!"):
		return true
	}
	return strings.HasPrefix(t, ":") && len(t) > 1 && isLetter(t[1])
}

// prompt records a user prompt as one turn. The prompt goes into the
// prompt history once it is recorded; a turn cancelled (Ctrl-C, ctx) before
// it completed takes it out again. What the session recorded stays: the
// prompt, and the turn, ended with the label "cancelled".
func (r *repl) prompt(ctx context.Context, text string) {
	atts, err := r.takeAttachments()
	if err != nil {
		fmt.Fprintln(r.out, "cairn:", userError(err), "(nothing was sent; :attach the files again)")
		return
	}
	if err := r.remoteBind(r.g.Ctx); err != nil {
		fmt.Fprintln(r.out, "cairn:", userError(err))
		return
	}
	if _, err := r.sess.Append(r.g.Ctx, engine.Item{Type: engine.User, Text: text, Attachments: atts}); err != nil {
		fmt.Fprintln(r.out, "cairn:", userError(err))
		return
	}
	if name := r.pendingName; name != "" {
		r.pendingName = ""
		if err := r.sess.Rename(r.g.Ctx, name); err != nil {
			fmt.Fprintln(r.out, "cairn:", userError(err))
		}
	}
	stored := r.sess.Recorded() && !r.store.Ephemeral()
	if stored {
		if err := r.store.AddHistory(text, r.ws.Path()); err != nil {
			r.notice(fmt.Sprintf("prompt history not saved: %v", err))
		}
	}
	if r.turnHook != nil {
		err = r.turnHook(ctx, text)
	}
	cancelled := ctx.Err() != nil || errors.Is(err, context.Canceled)
	if err != nil && !cancelled {
		fmt.Fprintln(r.out, "cairn:", userError(err))
	}
	labels := []string{"prompt"}
	if cancelled {
		labels = append(labels, "cancelled")
	}
	// The REPL grants no standing permissions itself, so the trust map it
	// records is the session's own (empty for a new one): a resume then has
	// a map to restore and does not ask the trust question again.
	trust := r.sess.Record().Trust
	if trust == nil {
		trust = &engine.Trust{Map: map[string]string{}, Rules: []engine.TrustRule{}}
	}
	if err := r.sess.EndTurn(r.g.Ctx, engine.Turn{Labels: labels, Trust: trust}); err != nil {
		fmt.Fprintln(r.out, "cairn:", userError(err))
	}
	if cancelled {
		if stored {
			if err := r.store.CancelHistory(text); err != nil {
				r.notice(fmt.Sprintf("prompt history not saved: %v", err))
			}
		}
		fmt.Fprintln(r.out, "\nCancelled; the prompt stays in the session and is taken out of the prompt history.")
		return
	}
	if r.ed != nil {
		r.ed.AddHistory(editorHistory([]string{text})[0])
	}
}

// firstLine is the first line of s, for one line of output (escaped).
func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return display.Line(l)
}
