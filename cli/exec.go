package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"cairn/engine"
)

// ToolExecCmd is `cairn tool exec [--session S] -- LINE`: a shell line run
// with sh -c in the workspace, through the session's shell history, its
// output kept as a tool output and what it changes recorded for file
// revert. The line's exit code is the answer's "exit_code", never cairn's:
// cairn exits 0 when it ran the line and recorded what it had to (also
// when the store refused the record and the line ran without one, which
// "unrecorded" says), and non-zero only when it did not run the line (a
// record it must make could not be made, bad input, a busy session).
type ToolExecCmd struct {
	NoSnapshots bool     `name:"no-snapshots" help:"Record no file changes for this process."`
	Timeout     int      `name:"timeout" default:"120" placeholder:"SECONDS" help:"The line's hard deadline: it is killed after SECONDS (default 120). A one-shot command waits for the line whatever agent.shell_execution says (auto resolves to sync; async is refused)."`
	Line        []string `arg:"" passthrough:"" placeholder:"LINE" help:"The shell line: the words after -- joined by spaces (quote it as one word to keep its own quoting)."`
}

func (c *ToolExecCmd) Run(g *Globals, t *ToolCmd) error {
	line := strings.Join(c.Line, " ")
	if len(c.Line) > 0 && c.Line[0] == "--" {
		line = strings.Join(c.Line[1:], " ")
	}
	if strings.TrimSpace(line) == "" {
		return usageErrorf("tool exec needs a shell line: cairn tool exec -- LINE")
	}
	if c.Timeout < 1 || c.Timeout > engine.MaxShellTimeoutSecs {
		return usageErrorf("--timeout takes 1 to %d seconds, not %d", engine.MaxShellTimeoutSecs, c.Timeout)
	}
	opts := g.SessionOptions()
	opts.NoSnapshots = c.NoSnapshots
	ws, s, err := g.toolSession(t.Session, opts)
	if re := (*engine.RemoteError)(nil); errors.As(err, &re) && ws != nil {
		return c.runOnHost(g, t, ws, re, line)
	}
	if err != nil {
		return err
	}
	defer s.Close()
	// The line's own output: live on stderr under --json (stdout holds the
	// answer), else on stdout and stderr as it prints them.
	eo := engine.ExecOptions{Call: t.Call, Stdout: g.Stdout, Stderr: g.Stderr}
	if g.JSON {
		eo.Stdout = g.Stderr
	}
	// SIGTERM and SIGHUP (the terminal gone) stop the line as Ctrl-C does:
	// killed and recorded, never left running after cairn, its processes
	// in a group of their own that the signal does not reach.
	ctx, stop := signal.NotifyContext(g.Ctx, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	sa, err := s.Shell(ctx, line, engine.ShellOptions{ExecOptions: eo, TimeoutSecs: c.Timeout, Use: engine.ExecOneShot})
	a := sa.Exec
	if a != nil && errors.Is(err, context.Canceled) {
		return fmt.Errorf("cancelled: the line was stopped (exit %d); its shell history entry is %s and its output %s", a.ExitCode, a.Run, a.Output)
	}
	if err != nil {
		return refusedLine(err)
	}
	if err := s.Close(); err != nil {
		return err
	}
	if g.JSON {
		return g.PrintJSON(struct {
			*engine.ExecAnswer
			TimedOut bool `json:"timed_out,omitempty"`
		}{a, sa.TimedOut})
	}
	if sa.TimedOut {
		fmt.Fprintf(g.Stderr, "cairn: the line passed its timeout and was killed\n")
	}
	printExecAnswer(g.Stderr, ws, a, false)
	return nil
}

// printExecAnswer is the readable summary of an exec's answer, after the
// line's own output.
func printExecAnswer(w io.Writer, ws filesRoot, a *engine.ExecAnswer, own bool) {
	rec := "no record"
	switch {
	case own:
		rec = "your own line, no record"
	case a.Snapshot != nil:
		rec = "record " + *a.Snapshot
	case a.Unrecorded != "":
		rec = "ran without a record: " + a.Unrecorded
	case a.Scope == engine.ScopeNone:
		rec = "read only, nothing to record"
	}
	fmt.Fprintf(w, "[exit %d, output %s, %s]\n", a.ExitCode, a.Output, rec)
	if len(a.Files) > 0 {
		fmt.Fprintf(w, "Changed %s.\n", strings.Join(relPaths(ws, a.Files), ", "))
	}
	if len(a.Skipped) > 0 {
		fmt.Fprintf(w, "Too large to store, so a file revert stops at it: %s\n", strings.Join(relPaths(ws, a.Skipped), ", "))
	}
	if len(a.Dropped) > 0 {
		fmt.Fprintf(w, "Dropped to keep the change store within storage.snapshots.max_bytes_mb: %s\n", strings.Join(a.Dropped, ", "))
	}
}

// replExecCmd is :exec LINE, a recorded exec call; replOwnCmd is !LINE,
// the user's own command, kept in the shell history and the outputs but
// given no record of its own. The line is taken as typed, for sh -c.
type (
	replExecCmd struct {
		Timeout int    `name:"timeout" default:"120" placeholder:"SECONDS" help:"The line's hard deadline (default 120). Under shell auto, a timeout over the async threshold runs it in the background (on a remote workspace, on its host, where it outlives the connection): its receipt now, its end reported above the input line."`
		Line    string `arg:"" placeholder:"LINE" help:"The shell line, as typed (run with sh -c in the workspace)."`
	}
	replOwnCmd struct {
		Line string `arg:"" placeholder:"LINE" help:"The shell line, as typed (run with sh -c in the workspace)."`
	}
)

func (c *replExecCmd) Run(r *repl, l *replLine) error {
	if c.Line == "" {
		return usageErrorf(":exec needs a shell line")
	}
	if c.Timeout < 1 || c.Timeout > engine.MaxShellTimeoutSecs {
		return usageErrorf("--timeout takes 1 to %d seconds, not %d", engine.MaxShellTimeoutSecs, c.Timeout)
	}
	return r.execLine(l.ctx, c.Line, false, c.Timeout)
}
func (c *replOwnCmd) Run(r *repl, l *replLine) error {
	return r.execLine(l.ctx, c.Line, true, 0)
}

// execLine runs a REPL shell line (own: a !LINE) with timeout as its
// hard deadline, or (:exec, the agent section says so) in the background.
// A waited line's output shows as it prints; Ctrl-C kills it (ctx).
func (r *repl) execLine(ctx context.Context, line string, own bool, timeout int) error {
	eo := engine.ExecOptions{Own: own, Stdout: r.out, Stderr: r.out}
	var sa engine.ShellAnswer
	var err error
	switch {
	case own:
		// The person's own line is no agent call: it always waits, with
		// no deadline but Ctrl-C.
		sa.Exec, err = r.cell().Exec(ctx, line, eo)
	case r.rc.client != nil:
		// A remote workspace's lines run on its host. One the agent
		// section answers with a receipt runs there in the background
		// (repl_remote_jobs.go); the others wait, and the deadline
		// cancels the call over the connection, as Ctrl-C does.
		// (err is execLine's: the call's error, a lost connection's
		// included, is told below.)
		cfg, cerr := r.store.Config()
		if cerr != nil {
			return cerr
		}
		d, cerr := cfg.Agent.ShellCall(engine.ExecPersistent, timeout)
		if cerr != nil {
			return refusedLine(cerr)
		}
		if d.Receipt {
			return r.remoteJob(ctx, line, timeout)
		}
		dctx, cancel := context.WithTimeout(ctx, time.Duration(timeout)*time.Second)
		sa.Exec, err = r.cell().Exec(dctx, line, eo)
		if ctx.Err() == nil && errors.Is(dctx.Err(), context.DeadlineExceeded) {
			sa.TimedOut, err = true, nil
		}
		cancel()
	default:
		sa, err = r.sess.Shell(ctx, line, engine.ShellOptions{ExecOptions: eo, TimeoutSecs: timeout, Use: engine.ExecPersistent})
	}
	if rc := sa.Receipt; rc != nil {
		fmt.Fprintf(r.out, "Running in the background as %s (a receipt: admitted, not a success); its end is reported here. /tasks lists it, /shells stop %s stops it.\n", rc.Work, rc.Work)
		r.refreshPrompt()
		return nil
	}
	a := sa.Exec
	if a == nil {
		return refusedLine(err)
	}
	if sa.TimedOut {
		fmt.Fprintf(r.out, "\nThe line passed its timeout of %ds and was killed.\n", timeout)
	}
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(r.out, "\nCancelled; the line was stopped.")
	} else if err != nil {
		fmt.Fprintln(r.out, "cairn:", userError(err))
	}
	printExecAnswer(r.out, r.filesAt(), a, own)
	// A shell line is its own turn: durable once shown.
	if err := r.cell().Commit(r.g.Ctx); err != nil {
		fmt.Fprintln(r.out, "cairn: the line ran but its records may not survive a crash:", userError(err))
	}
	return nil
}
