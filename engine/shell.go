package engine

import (
	"context"
	"errors"
	"fmt"
	"path"

	"cairn/engine/internal/shell"
)

// Shell history: the session's foreground shell commands, each recorded
// before it runs and when it settles, in <id>.shell.jsonl in the sessions
// folder (format and rules: engine/internal/shell). The session's part is
// its shell.Log, made on the first command and closed with the session;
// the store keeps the log of each session open in it (Store.shellLive),
// so ShellHistory can tell a running command from one cut short.

// Shell history's limits (settled commands ShellHistory returns, bytes kept
// of each stream) and its commands' states, as ShellEntry.Status.
const (
	ShellKeep        = shell.Keep
	ShellKeepBytes   = shell.KeepBytes
	ShellRunning     = shell.Running
	ShellFinished    = shell.Finished
	ShellInterrupted = shell.Interrupted
	ShellCancelled   = shell.Cancelled
)

func shellName(dir, id string) string { return path.Join(dir, "sessions", id+".shell.jsonl") }

// ShellEntry is one command of a session's shell history (shell.Shown).
type ShellEntry = shell.Shown

// shellClosed stands in Store.shellLive for the log of a session closed in
// the store.
type shellClosed struct{}

// ShellRun is a command recorded as started; Finish records how it settled.
type ShellRun struct {
	run     *shell.Run
	session string
}

// ID is the run's id, a shell label such as "shell-cargo-test-2". Use it
// unchanged; it is not rebuilt from the command.
func (r *ShellRun) ID() string { return r.run.ID() }

// ShellStart records, synced, that cmdline is about to run and returns the
// run; on an error the command must not run.
func (s *Session) ShellStart(ctx context.Context, cmdline string) (*ShellRun, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	err := s.writableBeside(ctx)
	if err == nil && s.shell == nil {
		w := s.ws
		s.shell = shell.NewLog(w.s.fsys, shellName(w.dir, s.st.ID), s.lock, "o-"+randHex(8), w.s.now, s.noticef)
		w.s.shellLive.Store(s.shell.Name(), s.shell)
	}
	sh := s.shell
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	run, err := sh.Start(cmdline)
	if err != nil {
		return nil, s.shellError(err)
	}
	return &ShellRun{run: run, session: s.st.ID}, nil
}

// closeShell ends the session's shell log: runs not finished read as
// interrupted from now on, whoever opens the session next in this store.
func (s *Session) closeShell() {
	if s.shell == nil {
		return
	}
	s.shell.Close()
	s.ws.s.shellLive.CompareAndSwap(s.shell.Name(), s.shell, shellClosed{})
}

// shellError is err of the shell log in the engine's words.
func (s *Session) shellError(err error) error { return shellError(err, s.st.ID) }

func shellError(err error, session string) error {
	if errors.Is(err, shell.ErrClosed) {
		return fmt.Errorf("engine: session %s is closed", session)
	}
	return err
}

// Finish records, synced, the command's exit code and the end of each
// stream (at most ShellKeepBytes). A failed Finish may be retried.
func (r *ShellRun) Finish(ctx context.Context, exit int, stdout, stderr []byte) error {
	return r.finishTails(ctx, exit, shellTail{Bytes: stdout}, shellTail{Bytes: stderr})
}

// shellTail is the end of a stream a caller kept (shell.Tail): Bytes,
// after Dropped bytes it did not keep.
type shellTail = shell.Tail

// finishTails is Finish for streams whose beginnings the caller dropped:
// the end line's stdout_cut and stderr_cut count them too.
func (r *ShellRun) finishTails(ctx context.Context, exit int, stdout, stderr shellTail) error {
	return r.finishAs(ctx, r.run.Finish, exit, stdout, stderr)
}

// finishCancelled is finishTails for a line its owner stopped.
func (r *ShellRun) finishCancelled(ctx context.Context, exit int, stdout, stderr shellTail) error {
	return r.finishAs(ctx, r.run.FinishCancelled, exit, stdout, stderr)
}

func (r *ShellRun) finishAs(ctx context.Context, finish func(context.Context, int, shell.Tail, shell.Tail) error, exit int, stdout, stderr shellTail) error {
	err := finish(ctx, exit, stdout, stderr)
	if errors.Is(err, shell.ErrFinished) {
		return fmt.Errorf("%w: shell run %s already finished", ErrBadInput, r.run.ID())
	}
	return shellError(err, r.session)
}

// ShellHistory is session's shell history, in start order: the newest
// ShellKeep settled commands (finished or interrupted) and every running
// one. It needs no ownership.
func (w *Workspace) ShellHistory(ctx context.Context, session string) ([]ShellEntry, error) {
	if err := w.checkSession(session); err != nil {
		return nil, err
	}
	w.sweepKilled()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	name := shellName(w.dir, session)
	ents, _, err := shell.Read(w.s.fsys, name)
	if err != nil {
		return nil, err
	}
	owner := w.runOwner(session)
	return shell.History(ents, func(e *shell.Entry) bool {
		return owner.Running(e.PID, e.StartedAt.Time, func() (bool, bool) {
			v, ok := w.s.shellLive.Load(name)
			if !ok {
				// Not open in this store: another store of this process
				// may own it, and is asked as another process would be.
				return false, false
			}
			sh, open := v.(*shell.Log)
			return open && sh.Live(e.Owner, e.Run), true
		})
	}), nil
}
