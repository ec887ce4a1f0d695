package engine

import (
	"context"

	"cairn/engine/ids"
	"cairn/engine/internal/bgwork"
	"cairn/engine/internal/config"
	"cairn/engine/internal/execpolicy"
)

// Background work: how task and shell calls run (config.json's "agent"
// section, decided by engine/internal/execpolicy), and the ledger of a
// session's receipts, results, reports and deliveries (engine/internal/bgwork),
// kept beside its task records:
//
//	tasks/<session id>/work.jsonl   the ledger (format: engine/internal/bgwork)
//
// The folder goes with the session: moved with it, deleted with it, not
// copied into a fork. A session's owner writes the ledger; anyone reads it
// (Workspace.TaskControl). Cross-session messages are messages.go.

// The execution modes, as config.json spells them.
const (
	execSync  = execpolicy.Sync
	execAuto  = execpolicy.Auto
	execAsync = execpolicy.Async
)

// ExecUse says whether a session stays open to take a receipt's result.
type ExecUse = execpolicy.Use

// The uses.
const (
	ExecPersistent = execpolicy.Persistent
	ExecOneShot    = execpolicy.OneShot
)

// DefaultShellTimeoutSecs is a shell call's timeout when it gives none.
const DefaultShellTimeoutSecs = execpolicy.DefaultTimeoutSecs

// MaxShellTimeoutSecs bounds a shell call's timeout: one week.
const MaxShellTimeoutSecs = execpolicy.MaxSecs

// AgentConfig is the "agent" section of config.json.
type AgentConfig = config.AgentConfig

// workLedgerName is the ledger of session in workspace folder dir.
func workLedgerName(dir, session string) string { return bgwork.LedgerName(dir, session) }

// TaskControlRequest is one task_control call.
type TaskControlRequest = bgwork.Request

// TaskControlAnswer is what a task_control call answers.
type TaskControlAnswer = bgwork.Answer

// BackgroundWork is one task, shell job or workflow run.
type BackgroundWork = bgwork.Work

// TaskControl answers task_control's list and status from session's ledger
// without owning the session (work of an unowned session shows
// interrupted); cancel and background are refused here.
func (w *Workspace) TaskControl(ctx context.Context, session string, q TaskControlRequest) (TaskControlAnswer, error) {
	if err := w.checkSession(session); err != nil {
		return TaskControlAnswer{}, err
	}
	if err := ctx.Err(); err != nil {
		return TaskControlAnswer{}, err
	}
	// The tasks the task records keep, as the owner lists them (task.go).
	recs, err := w.taskRecords(session)
	if err != nil {
		return TaskControlAnswer{}, err
	}
	a, err := bgwork.ReadQuery(w.s.fsys, workLedgerName(w.dir, session), q, bgwork.KnownTasks(recs), w.ownerPID(session) == 0)
	return a, bgworkError(err)
}

// ReportInput is a child's report_to_parent call.
type ReportInput = bgwork.ReportInput

// checkReport checks a report_to_parent call; what is wrong with it is
// ErrBadInput.
func checkReport(in ReportInput) (bgwork.Report, error) {
	r, err := bgwork.CheckReport(in)
	return r, bgworkError(err)
}

// bgworkError is err of bgwork as the engine's errors (bgwork.EngineError).
func bgworkError(err error) error { return bgwork.EngineError(err) }

// WorkFunc is the work a runtime runs for a task or workflow run.
type WorkFunc = bgwork.Func

// WorkResult is how a run of work ended.
type WorkResult = bgwork.Result

// WorkCall is started work: its Receipt, and Wait for a call that waits.
type WorkCall = bgwork.Call

// WorkStart says what a task or workflow call starts (bgwork.Start).
type WorkStart = bgwork.Start

// WorkResume says how ResumeWork runs a paused workflow again.
type WorkResume = bgwork.Resume

// StartWork admits a task or workflow run under config.json's agent section
// and runs fn in a goroutine: a call that waits gets its result from
// WorkCall.Wait, one answered with a receipt through Deliver.
func (s *Session) StartWork(ctx context.Context, w WorkStart, fn WorkFunc) (*WorkCall, error) {
	d, r, err := s.workRunner(ctx, w.Background)
	if err != nil {
		return nil, err
	}
	a := bgwork.Admission{Type: w.Type, Owner: w.Owner, Call: w.Call, Label: w.Label, Background: d.Receipt, Turn: s.turns()}
	if w.Type == bgwork.TypeTask {
		st := r.Ledger().State()
		a.ID = ids.Slug(w.Label, func(c string) bool { _, ok := st.Work(c); return ok })
	}
	c, err := r.Start(a, 0, fn)
	return c, bgworkError(err)
}

// WorkPaused reports whether a WorkFunc's ctx ended because its run was
// paused (PauseWork): the function saves what it needs and returns a
// WorkResult without an Outcome.
func WorkPaused(ctx context.Context) bool { return bgwork.Paused(ctx) }

// PauseWork pauses running workflow run id: recorded, its function told
// (WorkPaused), its work cancelled. It keeps its id and outlives a close or
// crash; a call waiting for it gets ErrWorkPaused.
func (s *Session) PauseWork(ctx context.Context, id string) (BackgroundWork, error) {
	a, err := s.TaskControl(ctx, TaskControlRequest{Action: bgwork.ActionPause, TaskID: id})
	if err != nil {
		return BackgroundWork{}, err
	}
	return *a.Work, nil
}

// ResumeWork runs paused workflow run id again, fn going on from what it
// saved; it waits or gets a receipt as StartWork does.
func (s *Session) ResumeWork(ctx context.Context, id string, w WorkResume, fn WorkFunc) (*WorkCall, error) {
	d, r, err := s.workRunner(ctx, w.Background)
	if err != nil {
		return nil, err
	}
	if cur, ok := r.Ledger().Work(id); ok && cur.Type != bgwork.TypeWorkflow {
		return nil, refusedf("%s is a %s: ResumeWork resumes a paused workflow run", id, cur.Type)
	}
	c, err := r.Continue(id, w.Call, d.Receipt, 0, fn)
	return c, bgworkError(err)
}

// workRunner readies a task or workflow call made with background: the
// agent section's decision for it, and the session's Runner.
func (s *Session) workRunner(ctx context.Context, background bool) (execpolicy.Decision, *bgwork.Runner, error) {
	if err := ctx.Err(); err != nil {
		return execpolicy.Decision{}, nil, err
	}
	cfg, err := s.config()
	if err != nil {
		return execpolicy.Decision{}, nil, err
	}
	d, err := cfg.Agent.TaskCall(ExecPersistent, background)
	if err != nil {
		return execpolicy.Decision{}, nil, err
	}
	r, err := s.runner()
	return d, r, err
}
