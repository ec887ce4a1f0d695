package cli

import (
	"errors"
	"fmt"
	"os"

	xterm "golang.org/x/term"

	"cairn/cli/term"
	"cairn/engine"
)

// RunCmd is the default command: the line REPL in this directory.
type RunCmd struct {
	Resume      string `short:"r" name:"resume" placeholder:"SESSION" help:"Resume a session (id, prefix or title); --resume or -r alone opens the picker."`
	Pick        bool   `name:"pick" hidden:"" help:"Open the picker (what a bare --resume means)."`
	Continue    bool   `short:"c" name:"continue" help:"Resume the most recently written session."`
	NoSnapshots bool   `name:"no-snapshots" help:"Record no file changes for this process."`
	Leader      string `name:"leader" env:"CAIRN_LEADER" default:"ctrl+x" placeholder:"KEY" help:"The leader key of the REPL: the leader, then z, r or p, is /undo, /redo or /snapshots, then e edits the line in $VISUAL or $EDITOR (ctrl+x, ctrl+g, alt+space...)."`
	ListenFlags `embed:""`
}

// ResumeCmd is `cairn resume`: the picker.
// It takes the REPL's own flags, so a resumed session runs as one started
// with `cairn --resume` does.
type ResumeCmd struct {
	Session     string `arg:"" optional:"" help:"Session to resume; without it, choose in the picker."`
	NoSnapshots bool   `name:"no-snapshots" help:"Record no file changes for this process."`
	Leader      string `name:"leader" env:"CAIRN_LEADER" default:"ctrl+x" placeholder:"KEY" help:"The leader key of the REPL: the leader, then z, r or p, is /undo, /redo or /snapshots, then e edits the line in $VISUAL or $EDITOR (ctrl+x, ctrl+g, alt+space...)."`
}

func (c *ResumeCmd) Run(g *Globals) error {
	r := RunCmd{Resume: c.Session, Pick: c.Session == "", NoSnapshots: c.NoSnapshots, Leader: c.Leader}
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
	interrupt := replInterrupt(g)
	r := &repl{g: g, in: g.stdin, out: g.stdout, errw: g.stderr, noSnapshots: c.NoSnapshots, leader: c.Leader, turnHook: replTurnHook}
	// The handler is there before the store is opened, so a signal at any
	// time closes it: an ephemeral root is removed, not left on disk.
	stop := r.closeOnSignal(interrupt)
	defer stop()
	if err := r.openStore(); err != nil {
		return err
	}
	defer r.closeStore()
	defer r.closeKeys()
	r.returnRemovedCheckouts()
	switch {
	case c.Pick:
		id, err := r.pick()
		if errors.Is(err, term.ErrCancelled) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := r.resume(id); err != nil {
			return err
		}
	case c.Resume != "":
		id, err := r.ws.Resolve(g.ctx, c.Resume)
		if errors.Is(err, engine.ErrNotFound) {
			id, err = r.resolveInCheckouts(g.ctx, c.Resume, err)
		}
		if err != nil {
			return notHere(g.ctx, r.store, r.ws, err, c.Resume)
		}
		if err := r.resume(id); err != nil {
			return err
		}
	case c.Continue:
		id, err := r.ws.Latest(g.ctx)
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
	f, ok := g.stdin.(*os.File)
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
