package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"cairn/engine/ids"
	"cairn/engine/internal/bgwork"
	"cairn/engine/internal/execpolicy"
)

// Background shell lines of a remote workspace. The host runs the line
// (ShellJob, in the host session, under the id the client chose) and
// keeps its shell history entry, output and change record; the client's
// session admits it as held work (AdmitHeldShell: it belongs to the
// session, not to the process, so neither a close nor a later open
// interrupts it) and settles it with the outcome the host reports
// (SettleHeldShell), which is then delivered as a local job's result is.
// A cancel of it here (task_control, /shells stop, a stop of all work)
// reaches the host through OnHeldShellCancel.

// ShellJob runs shell line as background job id (a remote workspace's
// client asked), o.TimeoutSecs its deadline, as Shell runs one.
func (s *Session) ShellJob(ctx context.Context, id, line string, o ShellOptions) (*Receipt, error) {
	if err := checkJobLine(ctx, line); err != nil {
		return nil, err
	}
	if !ids.Valid(id) {
		return nil, fmt.Errorf("%w: %q is not a job id", ErrBadInput, id)
	}
	if o.TimeoutSecs == 0 {
		o.TimeoutSecs = DefaultShellTimeoutSecs
	}
	if err := execpolicy.CheckSecs(o.TimeoutSecs); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	r, err := s.runner()
	if err != nil {
		return nil, err
	}
	s.sweepDeadJobs()
	return s.beginShellJob(r, id, line, o.ExecOptions, time.Duration(o.TimeoutSecs)*time.Second)
}

// checkJobLine refuses a background shell line with no command or a NUL
// byte, or ctx done.
func checkJobLine(ctx context.Context, line string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if strings.TrimSpace(line) == "" || strings.ContainsRune(line, 0) {
		return fmt.Errorf("%w: a shell line must hold a command and no NUL byte", ErrBadInput)
	}
	return nil
}

// AdmitHeldShell records background shell line, run elsewhere (a remote
// workspace's host), as held work under a new job id, before it is sent.
func (s *Session) AdmitHeldShell(ctx context.Context, line, call string) (*Receipt, error) {
	if err := checkJobLine(ctx, line); err != nil {
		return nil, err
	}
	r, err := s.runner()
	if err != nil {
		return nil, err
	}
	rc, err := r.Ledger().Admit(bgwork.Admission{Type: bgwork.TypeShell, Call: call, Label: line,
		Background: true, Held: true, Turn: s.turns()})
	if err != nil {
		return nil, bgworkError(err)
	}
	return &rc, nil
}

// HeldShells is the session's live held shell jobs (running or
// cancelling elsewhere), oldest first.
func (s *Session) HeldShells() ([]BackgroundWork, error) {
	r, err := s.runner()
	if err != nil {
		return nil, err
	}
	return r.Ledger().State().HeldShells(), nil
}

// SettleHeldShell settles held shell job id with how it ended there
// (res.Outcome set), delivered as a local job's result; false, changing
// nothing, when it is settled already (told again at the next connect).
func (s *Session) SettleHeldShell(id string, res WorkResult) (bool, error) {
	r, err := s.runner()
	if err != nil {
		return false, err
	}
	ok, err := r.Ledger().SettleHeld(id, res)
	if ok {
		s.wakeUp()
	}
	return ok, bgworkError(err)
}

// OnHeldShellCancel sets fn to stop a cancelled held shell job where it
// runs (it shows cancelling until settled); without fn, the next connect.
func (s *Session) OnHeldShellCancel(fn func(id string) error) {
	s.work.mu.Lock()
	s.work.heldCancel = fn
	s.work.mu.Unlock()
}

// endHeld ends held work id that runs in no process here, as a cancel
// asks: a held shell job through OnHeldShellCancel, a task of the
// plumbing in its records.
func (s *Session) endHeld(id string) error {
	s.work.mu.Lock()
	fn, r := s.work.heldCancel, s.work.runner
	s.work.mu.Unlock()
	if r != nil {
		if w, ok := r.Ledger().Work(id); ok && w.Type == bgwork.TypeShell {
			if fn == nil {
				return nil // cancelling: the next connect stops it there
			}
			return fn(id)
		}
	}
	return s.endTaskNamed(id, TaskCancelled) // a task of the plumbing
}
