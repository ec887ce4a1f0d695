package engine

import (
	"bytes"
	"cairn/engine/ids"
	"cairn/engine/internal/bgwork"
	"cairn/engine/internal/changes"
	"cairn/engine/internal/hookmark"
	"context"
	"errors"
)

// A session's background shell lines (Shell answered with a receipt): run
// as Exec runs a line, recorded as an agent's shell call under hooks is,
// in the shell history, their result worded by package bgwork.

// sweepDeadJobs closes the pending markers of the shell jobs a crash
// interrupted (dropJobMarkers), once the ledger's recovery found them:
// until then a call meeting their scopes would join a unit that never
// ends. Called where the session's lock is not held.
func (s *Session) sweepDeadJobs() {
	s.work.mu.Lock()
	dead := s.work.dead
	s.work.dead = nil
	s.work.mu.Unlock()
	if len(dead) > 0 {
		s.dropJobMarkers(context.Background(), true, dead...)
	}
}

// shellJob runs background shell line job, started when at was the
// newest item, and says how it ended.
func (s *Session) shellJob(ctx context.Context, job, line string, eo ExecOptions, at changes.ItemRef, begun func()) bgwork.Result {
	defer begun()
	ans, later, err := s.execBackground(ctx, job, line, eo, at, begun)
	r := bgwork.ShellRun{Started: ans != nil, Stopped: ctx.Err() != nil, Err: err, RecordLater: later != nil}
	if ans != nil {
		r.Exit, r.Output, r.Files = ans.ExitCode, ans.Output, len(ans.Files)
		if ans.Snapshot != nil {
			r.Record = *ans.Snapshot
		}
	}
	res := bgwork.ShellResult(r)
	res.After = later
	return res
}

// execBackground runs background shell line job as Exec runs a line, but
// without holding the session's calls while it runs: its change record is
// begun as an agent's shell call under hooks is (beginExec: the scope
// walked and stored, a pending marker left) and settled when it ends
// (SettleChange: walked again, the call and record lines written). So a
// file tool or an exec line that runs meanwhile and meets its scope
// joins its unit (engine/internal/overlap), and what the job changed is
// attributed to its call and revertable. Its start line is in the shell
// history before it runs; one cancelled before it started gets a
// cancelled entry there. The workspace call lock is held shared (no file
// revert runs under it).
//
// begun is called once the line runs (or will not), or before it waits
// for a call of the session to end; Shell's receipt waits for it.
//
// Its record is settled before its result when the undo stack's lock is
// free. While a call of the session holds it (a foreground shell line),
// settling would wait for that call, and the call may be waiting for this
// job's result (a line polling for it): then later, non-nil, settles the
// record, and the caller runs it once the result is out (bgwork
// Result.After). A crash in between leaves the job's marker, closed as
// interrupted at the next open (Session.runner).
//
// Its record names at, the newest item when the job was started, as the
// place it began: a revert and /diff place it by the turn that started it.
func (s *Session) execBackground(ctx context.Context, job, line string, eo ExecOptions, at changes.ItemRef, begun func()) (ans *ExecAnswer, later func(), err error) {
	// A call of the session holding the undo stack's lock (a foreground
	// line, which may wait for this job) is not waited for by the receipt;
	// a file revert under way is: it ends by itself.
	if s.snaps.mu.TryLock() {
		s.snaps.mu.Unlock()
	} else {
		begun()
	}
	end, err := s.beginCall(ctx)
	if err != nil {
		return nil, nil, s.notStarted(ctx, line, err)
	}
	// Given back by later when there is one, so that no file revert of
	// another session runs between the job's end and its record.
	keep := false
	defer func() {
		if !keep {
			end()
		}
	}()
	ans = &ExecAnswer{Session: s.ID(), Files: []string{}, Skipped: []string{}, Scope: ScopeNone}
	var p *hookmark.Exec
	if !eo.Own {
		if p, err = s.beginExec(ctx, "exec", eo.Call, hookMarker(s.ws.dir, s.ID(), hookmark.JobCall(job)), line, "", at); err != nil {
			return nil, nil, s.notStarted(ctx, line, err)
		}
		ans.Scope, ans.Unrecorded = p.Scope, p.Unrecorded
	}
	run, err := s.ShellStart(ctx, line)
	if err != nil {
		s.dropJobMarkers(context.WithoutCancel(ctx), false, job)
		return nil, nil, s.notStarted(ctx, line, err)
	}
	ans.Run = run.ID()
	begun()
	out := s.runShell(ctx, line, eo)
	ans.ExitCode = out.Exit
	finish := run.finishTails
	if errors.Is(ctx.Err(), context.Canceled) {
		// Its owner stopped it (a cancel, a stop, the session's close):
		// the shell history says cancelled, not the killed line's exit.
		finish = run.finishCancelled
	}
	bg := context.WithoutCancel(ctx)
	if err := finish(bg, out.Exit, tailOf(&out.Stdout), tailOf(&out.Stderr)); err != nil {
		s.noticef("the background line ran, but its end could not be kept in the shell history: %v", err)
	}
	if ans.Output, err = s.PutOutput(bg, ids.ShellLabel(line), bytes.NewReader(out.All.Bytes())); err != nil {
		s.noticef("the background line's output could not be kept: %v", err)
	}
	if p != nil && p.Scope != ScopeNone && p.Unrecorded == "" {
		settle := func() *ToolAnswer {
			rec, err := s.SettleChange(bg, hookmark.JobCall(job))
			if err != nil {
				s.noticef("the background line ran, but its changes could not be recorded: %v", err)
			}
			return rec
		}
		if !s.snaps.mu.TryLock() {
			// A call of the session runs: the record follows the result.
			keep = true
			return ans, func() { defer end(); settle() }, out.Err
		}
		s.snaps.mu.Unlock()
		if rec := settle(); rec != nil {
			ans.Snapshot, ans.Files, ans.Skipped = rec.Snapshot, rec.Files, rec.Skipped
		}
	}
	return ans, nil, out.Err
}

// notStarted is err of a background line that did not start. One its
// owner cancelled first gets a shell history entry all the same, started
// and cancelled at once, so the history holds every background line.
func (s *Session) notStarted(ctx context.Context, line string, err error) error {
	if ctx.Err() == nil {
		return err
	}
	bg := context.WithoutCancel(ctx)
	run, serr := s.ShellStart(bg, line)
	if serr == nil {
		serr = run.finishCancelled(bg, -1, shellTail{}, shellTail{})
	}
	if serr != nil {
		s.noticef("a background line cancelled before it started could not be kept in the shell history: %v", serr)
	}
	return err
}

// dropJobMarkers removes the pending markers of background jobs that
// will not settle them: one that did not start (no call line was
// written: nothing to close), or ones that ran and a crash interrupted
// (closed with an unrecorded line, why "interrupted", as a stale marker
// of a dead agent is). Best effort.
func (s *Session) dropJobMarkers(ctx context.Context, ran bool, jobs ...string) {
	s.closeStaleExecs(ctx, hookmark.DropJobs(s.ws.s.fsys, hooksDir(s.ws.dir, s.ID()), ran, jobs...))
	s.sweepUnits()
}
