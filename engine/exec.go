package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"cairn/engine/ids"
	"cairn/engine/internal/callrec"
	"cairn/engine/internal/shellproc"
)

// The exec tool: a shell line run with `sh -c` in the workspace, through
// the shell history (its start line written before it runs; if that fails
// it does not run), its whole output kept as a tool output, and what it
// changes recorded for file revert (callrec.go) — never as an undo
// snapshot (seed 001: undo covers the file tools only).

// ExecOptions change how Exec runs a shell line (callrec.ExecOptions).
type ExecOptions = callrec.ExecOptions

// ExecAnswer is what Exec did (callrec.ExecAnswer).
type ExecAnswer = callrec.ExecAnswer

// Exec runs shell line with `sh -c` in the workspace, recorded; a line the
// store refuses runs unrecorded (Answer.Unrecorded), any other failure to
// record refuses it. A cancelled ctx kills its process group.
func (s *Session) Exec(ctx context.Context, line string, opts ExecOptions) (*ExecAnswer, error) {
	if strings.TrimSpace(line) == "" || strings.ContainsRune(line, 0) {
		return nil, fmt.Errorf("%w: a shell line must hold a command and no NUL byte", ErrBadInput)
	}
	call, err := s.callFor(opts.Call)
	if err != nil {
		return nil, err
	}
	sc := callScope{Kind: ScopeNone, own: true}
	if !opts.Own {
		sc = s.ws.lineScope(line)
	}
	ans := &ExecAnswer{Session: s.ID(), Files: []string{}, Skipped: []string{}, Scope: sc.Kind}
	// Closing the session kills the line (seed 000: closing cancels its
	// running commands and waits for them to settle).
	ctx, stop := s.untilClose(ctx)
	defer stop()
	var out shellproc.Output
	rc, err := s.recordCall(ctx, "exec", call, sc, func(ctx context.Context) error {
		run, err := s.ShellStart(ctx, line)
		if err != nil {
			return &notRun{err}
		}
		ans.Run = run.ID()
		out = s.runShell(ctx, line, opts)
		if err := run.finishTails(context.WithoutCancel(ctx), out.Exit, tailOf(&out.Stdout), tailOf(&out.Stderr)); err != nil {
			s.noticef("the shell line ran, but its end could not be kept in the shell history: %v", err)
		}
		// Kept while the call still holds the session, so a Close
		// waiting for it does not shut the output out.
		oid, perr := s.PutOutput(context.WithoutCancel(ctx), ids.ShellLabel(line), bytes.NewReader(out.All.Bytes()))
		if perr != nil {
			s.noticef("the shell line's output could not be kept: %v", perr)
		}
		ans.Output = oid
		return out.Err
	})
	if rc != nil {
		if rc.Scope != "" {
			ans.Scope = rc.Scope
		}
		ans.Unrecorded, ans.Dropped = rc.Unrecorded, rc.Dropped
		ans.Snapshot, ans.Files, ans.Skipped = s.recordAnswer(rc)
	}
	var nr *notRun
	if errors.As(err, &nr) {
		return nil, nr.err
	}
	if err != nil && ans.Run == "" {
		return nil, err
	}
	ans.ExitCode = out.Exit
	if err != nil && !errors.Is(err, context.Canceled) {
		return ans, err
	}
	return ans, ctx.Err()
}

// tailOf is the end of a stream a line printed, as the shell history keeps it.
func tailOf(b *shellproc.TailBuffer) shellTail {
	return shellTail{Bytes: b.Bytes(), Dropped: b.Dropped()}
}

// runShell runs line with sh -c in the workspace (shellproc.Run), its
// output to opts' writers and to its buffers. No line goes on changing
// files after its record was closed: its process group dies with cairn.
func (s *Session) runShell(ctx context.Context, line string, opts ExecOptions) shellproc.Output {
	return shellproc.Run(ctx, &s.ws.s.forker, line, s.ws.path, opts.Stdout, opts.Stderr, ShellKeepBytes, s.ws.s.maxOutputBytes())
}
