package cli

import (
	"context"
	"errors"
	"fmt"
	"os/signal"
	"syscall"

	"cairn/engine"
)

// runOnHost is `cairn tool exec` on a session bound to a remote
// workspace: the line runs on the host, in the session's host session,
// as the REPL's waited shell line does there, and is answered as a local
// one is (the same output, --json shape and exit codes). The agent
// section of this machine's config.json decides as it does here: a
// one-shot command waits (auto resolves to sync; async is refused before
// anything connects). The timeout, Ctrl-C, SIGTERM and SIGHUP cancel the
// call over the connection: the host kills the line's process group and
// records what it changed.
func (c *ToolExecCmd) runOnHost(g *Globals, t *ToolCmd, ws *engine.Workspace, re *engine.RemoteError, line string) error {
	store, err := g.Open()
	if err != nil {
		return err
	}
	cfg, err := store.Config()
	if err != nil {
		return err
	}
	d, err := cfg.Agent.ShellCall(engine.ExecOneShot, c.Timeout)
	if err != nil {
		return refusedLine(err)
	}
	eo := engine.ExecOptions{Call: t.Call, Stdout: g.Stdout, Stderr: g.Stderr}
	if g.JSON {
		eo.Stdout = g.Stderr
	}
	ctx, stop := signal.NotifyContext(g.Ctx, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	var (
		a        *engine.ExecAnswer
		lineErr  error
		timedOut bool
		files    filesRoot
	)
	err = g.onHost(ws, re.Session, &re.Remote, false, func(bs *boundSession) error {
		files = bs.files()
		cell := &remoteCell{sess: bs.sess, hs: bs.hs, bind: re.Remote}
		dctx, cancel := context.WithTimeout(ctx, d.Deadline)
		defer cancel()
		a, lineErr = cell.Exec(dctx, line, eo)
		if a != nil && ctx.Err() == nil && errors.Is(dctx.Err(), context.DeadlineExceeded) {
			timedOut, lineErr = true, nil
		}
		if a == nil {
			return refusedLine(lineErr)
		}
		// The line is its own turn: durable on the host once answered.
		return cell.Commit(context.WithoutCancel(ctx))
	})
	if a != nil && errors.Is(lineErr, context.Canceled) {
		return fmt.Errorf("cancelled: the line was stopped on %s (exit %d); its shell history entry there is %s and its output %s", re.Remote.Host, a.ExitCode, a.Run, a.Output)
	}
	if err != nil {
		return err
	}
	if g.JSON {
		return g.PrintJSON(struct {
			*engine.ExecAnswer
			TimedOut bool `json:"timed_out,omitempty"`
		}{a, timedOut})
	}
	if timedOut {
		fmt.Fprintf(g.Stderr, "cairn: the line passed its timeout and was killed\n")
	}
	printExecAnswer(g.Stderr, files, a, false)
	return nil
}
