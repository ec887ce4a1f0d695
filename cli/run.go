package cli

import (
	"errors"
	"fmt"
	"os"

	xterm "golang.org/x/term"

	"cairn/cli/term"
)

// RunCmd is the default command: the line REPL in this directory.
type RunCmd struct {
	Resume      string `short:"r" name:"resume" placeholder:"SESSION" predictor:"session" help:"Resume a session (id, prefix or title); --resume or -r alone opens the picker."`
	Pick        bool   `name:"pick" hidden:"" help:"Open the picker (what a bare --resume means)."`
	Continue    bool   `short:"c" name:"continue" help:"Resume the most recently written session."`
	All         bool   `name:"all" help:"With --resume: the picker lists the sessions of every directory (Ctrl-A in the picker switches)."`
	NoSnapshots bool   `name:"no-snapshots" help:"Record no file changes for this process."`
	Leader      string `name:"leader" env:"CAIRN_LEADER" default:"ctrl+x" placeholder:"KEY" help:"The leader key of the REPL: the leader, then z, r or p, is /undo, /redo or /snapshots, then e edits the line in $VISUAL or $EDITOR (ctrl+x, ctrl+g, alt+space...)."`
	Remote      string `name:"remote" placeholder:"NAME" help:"With --resume: fetch the session from this remote first (its objects come when read), into the directory it ran in when that is here, else this one."`
	ListenFlags `embed:""`
}

// ResumeCmd is `cairn resume`: the picker.
// It takes the REPL's own flags, so a resumed session runs as one started
// with `cairn --resume` does.
type ResumeCmd struct {
	Session     string `arg:"" optional:"" predictor:"session" help:"Session to resume; without it, choose in the picker."`
	All         bool   `name:"all" help:"The picker lists the sessions of every directory (Ctrl-A in the picker switches)."`
	NoSnapshots bool   `name:"no-snapshots" help:"Record no file changes for this process."`
	Leader      string `name:"leader" env:"CAIRN_LEADER" default:"ctrl+x" placeholder:"KEY" help:"The leader key of the REPL: the leader, then z, r or p, is /undo, /redo or /snapshots, then e edits the line in $VISUAL or $EDITOR (ctrl+x, ctrl+g, alt+space...)."`
}

func (c *ResumeCmd) Run(g *Globals) error {
	r := RunCmd{Resume: c.Session, Pick: c.Session == "", All: c.All, NoSnapshots: c.NoSnapshots, Leader: c.Leader}
	return r.Run(g)
}

func (c *RunCmd) Run(g *Globals) error {
	n := 0
	for _, b := range []bool{c.Resume != "", c.Pick, c.Continue} {
		if b {
			n++
		}
	}
	if n > 1 {
		return usageErrorf("choose one of --resume, --continue")
	}
	if g.Ephemeral != nil && *g.Ephemeral && n > 0 {
		return usageErrorf("--ephemeral starts a new session; it cannot resume one")
	}
	if c.All && !c.Pick && c.Resume == "" {
		return usageErrorf("--all is for the picker: cairn --resume --all")
	}
	if c.Remote != "" {
		if c.Resume == "" {
			return usageErrorf("--remote goes with --resume SESSION")
		}
		id, dir, err := g.fetchRemote(c.Remote, c.Resume)
		if err != nil {
			return err
		}
		c.Resume, g.Chdir = id, dir
	}
	interrupt := replInterrupt(g)
	r := &repl{g: g, in: g.Stdin, out: g.Stdout, errw: g.Stderr, noSnapshots: c.NoSnapshots, leader: c.Leader, turnHook: replTurnHook}
	// The handler is there before the store is opened, so a signal at any
	// time closes it: an ephemeral root is removed, not left on disk.
	stop := r.closeOnSignal(interrupt)
	defer stop()
	if err := r.openStore(); err != nil {
		return err
	}
	defer r.closeStore()
	defer r.closeKeys()
	if err := r.startRemote(c.Pick || c.Resume != "" || c.Continue); err != nil { // repl_remote.go
		return err
	}
	defer r.remoteEnd()
	r.returnRemovedCheckouts()
	switch {
	case c.Pick || c.Resume != "":
		// --resume alone is the picker; --resume NAME resumes what NAME
		// names, or opens the picker on the sessions it names when
		// several.
		var row term.Row
		var err error
		if c.Pick {
			row, err = r.pick(pickOptions{every: c.All})
		} else {
			row, err = r.resolveOrPick(c.Resume)
		}
		switch {
		case errors.Is(err, term.ErrCancelled):
			return nil
		case errors.Is(err, term.ErrInterrupted):
			return errPickInterrupted
		case err != nil:
			return err
		}
		if err := r.resume(row.ID); err != nil {
			return err
		}
	case c.Continue:
		id, err := r.ws.Latest(g.Ctx)
		if err != nil {
			return err
		}
		if err := r.resume(id); err != nil {
			return err
		}
	default:
		r.startNew()
	}
	return r.serving(c.ListenFlags, r.loop)
}

// stdinTerminal returns stdin as a terminal file, or nil.
func stdinTerminal(g *Globals) *os.File {
	f, ok := g.Stdin.(*os.File)
	if !ok || !xterm.IsTerminal(int(f.Fd())) {
		return nil
	}
	return f
}

// notice shows a one-line message, but not the one it showed last again:
// a notice that comes back after another one (the session cannot be
// recorded a second time, after it was recorded again) is shown again.
func (r *repl) notice(msg string) {
	if r.noticed == msg {
		return
	}
	r.noticed = msg
	fmt.Fprintln(r.errw, "cairn:", userText(msg))
}
