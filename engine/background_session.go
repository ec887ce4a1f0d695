package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"cairn/engine/ids"
	"cairn/engine/internal/bgwork"
	"cairn/engine/internal/changes"
	"cairn/engine/internal/inbox"
	"cairn/internal/vfs"
)

// A session's background work as its owner runs it: the ledger's Runner
// (engine/internal/bgwork) and the inbox (engine/internal/inbox), opened
// on first use. Their results, reports and messages reach the
// conversation as items through Deliver, in order and once each. Close
// cancels and drains the work before the session is saved. The mechanisms
// are in the packages; these are their entry points.

// sessionWork is the part of a Session that runs its background work.
type sessionWork struct {
	mu     sync.Mutex // a leaf but for Session.mu taken inside Deliver's sink
	runner *bgwork.Runner
	box    *inbox.Inbox
	wake   []func()
	closed bool
	// dead is the shell jobs a crash interrupted whose pending markers
	// are still to be closed (sweepDeadJobs).
	dead []string
}

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

// Receipt is a recorded admission of background work, never a success.
type Receipt = bgwork.Receipt

// runner is the session's Runner, the ledger opened (and recovered from a
// crash: work a gone process ran is settled interrupted) on first use.
func (s *Session) runner() (*bgwork.Runner, error) {
	w := &s.work
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.closed:
		return nil, fmt.Errorf("engine: session %s is closed", s.ID())
	case s.readOnly || s.changesOnly:
		return nil, refusedf("session %s is open without its conversation or without ownership: it runs no background work", s.ID())
	case w.runner != nil:
		return w.runner, nil
	}
	l, cut, err := bgwork.Open(s.ws.s.fsys, workLedgerName(s.ws.dir, s.ID()), bgwork.Options{Now: s.ws.s.Now, NewItem: newItemID})
	if err != nil {
		return nil, err
	}
	for _, j := range cut {
		if j.Type == bgwork.TypeShell {
			w.dead = append(w.dead, j.ID) // their markers: sweepDeadJobs
		}
	}
	// The tasks the task records keep are listed too (task.go).
	recs, err := s.ws.taskRecords(s.ID())
	if err == nil {
		err = l.Agree(bgwork.KnownTasks(recs))
	}
	if err != nil {
		s.noticef("the list of background work may lack some tasks for now: %v", err)
	}
	w.runner = bgwork.NewRunner(l, bgwork.RunnerOptions{
		Settled: func(bgwork.Work, *bgwork.Delivery) { s.wakeUp() },
		EndHeld: s.cancelHeldTask,
	})
	return w.runner, nil
}

// OnBackground calls fn (in a goroutine of the engine's) each time work
// settles or a message arrives: the caller then calls Deliver.
func (s *Session) OnBackground(fn func()) {
	s.work.mu.Lock()
	s.work.wake = append(s.work.wake, fn)
	s.work.mu.Unlock()
}

func (s *Session) wakeUp() {
	s.work.mu.Lock()
	fns := append([]func(){}, s.work.wake...)
	s.work.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

// ShellOptions change how Shell runs a shell call.
type ShellOptions struct {
	ExecOptions
	// TimeoutSecs is the call's timeout, its hard deadline;
	// DefaultShellTimeoutSecs when 0.
	TimeoutSecs int
	// Use: ExecPersistent (the session stays open to take a receipt's
	// result) or ExecOneShot (auto resolves to sync).
	Use ExecUse
}

// ShellAnswer is what a shell call answered: Exec when it waited, Receipt
// when it went on in the background (its end comes through Deliver).
type ShellAnswer struct {
	Exec    *ExecAnswer `json:"exec,omitempty"`
	Receipt *Receipt    `json:"receipt,omitempty"`
	// TimedOut: it waited and was killed at its deadline.
	TimedOut bool `json:"timed_out,omitempty"`
}

// Shell runs a shell call under the agent section of config.json: it
// waits (Exec, killed at the timeout), or it is admitted as a background
// job and answered with a receipt at once (shell auto over the threshold,
// or async). A background line is in the shell history as well as in the
// ledger; its result is delivered as a tool_result item naming the job.
func (s *Session) Shell(ctx context.Context, line string, o ShellOptions) (ShellAnswer, error) {
	cfg, err := s.config()
	if err != nil {
		return ShellAnswer{}, err
	}
	if o.TimeoutSecs == 0 {
		o.TimeoutSecs = DefaultShellTimeoutSecs
	}
	d, err := cfg.Agent.ShellCall(o.Use, o.TimeoutSecs)
	if err != nil {
		return ShellAnswer{}, err
	}
	if !d.Receipt {
		tctx, cancel := context.WithTimeout(ctx, d.Deadline)
		defer cancel()
		ans, err := s.Exec(tctx, line, o.ExecOptions)
		timedOut := errors.Is(tctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
		if timedOut {
			err = nil
		}
		return ShellAnswer{Exec: ans, TimedOut: timedOut}, err
	}
	if strings.TrimSpace(line) == "" || strings.ContainsRune(line, 0) {
		return ShellAnswer{}, fmt.Errorf("%w: a shell line must hold a command and no NUL byte", ErrBadInput)
	}
	r, err := s.runner()
	if err != nil {
		return ShellAnswer{}, err
	}
	s.sweepDeadJobs()
	st := r.Ledger().State()
	id := ids.Unique(ids.ShellLabel(line), func(c string) bool { _, ok := st.Work(c); return ok })
	eo := o.ExecOptions
	eo.Stdout, eo.Stderr = nil, nil // its end is reported, not its output as it runs
	c, err := r.Start(bgwork.Admission{ID: id, Type: bgwork.TypeShell, Call: eo.Call, Label: line, Background: true}, d.Deadline,
		func(ctx context.Context) bgwork.Result { return s.shellJob(ctx, id, line, eo) })
	if err != nil {
		return ShellAnswer{}, bgworkError(err)
	}
	return ShellAnswer{Receipt: &c.Receipt}, nil
}

// shellJob runs background shell line job and says how it ended.
func (s *Session) shellJob(ctx context.Context, job, line string, eo ExecOptions) bgwork.Result {
	ans, err := s.execBackground(ctx, job, line, eo)
	if ans == nil && ctx.Err() != nil {
		// Cancelled (or closed) before its shell started: the Runner
		// settles it cancelled, not failed.
		return bgwork.Result{Text: "not run: cancelled before it started"}
	}
	if ans == nil {
		return bgwork.Result{Outcome: bgwork.Failed, Text: "not run: " + err.Error()}
	}
	res := bgwork.Result{Text: fmt.Sprintf("exit %d", ans.ExitCode), Output: ans.Output}
	if ans.Snapshot != nil {
		res.Text += fmt.Sprintf(", record %s of %d file(s)", *ans.Snapshot, len(ans.Files))
	}
	switch {
	case ctx.Err() != nil:
		// The Runner says cancelled, or failed past the deadline.
	case ans.ExitCode != 0 || err != nil:
		res.Outcome = bgwork.Failed
	default:
		res.Outcome = bgwork.Succeeded
	}
	return res
}

// jobMarker is the pending marker's call name of background shell job
// job: unique in the session, as job ids are in its ledger.
func jobMarker(job string) string { return "cairn-bg-" + job }

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
func (s *Session) execBackground(ctx context.Context, job, line string, eo ExecOptions) (*ExecAnswer, error) {
	end, err := s.beginCall(ctx)
	if err != nil {
		return nil, s.notStarted(ctx, line, err)
	}
	defer end()
	ans := &ExecAnswer{Session: s.ID(), Files: []string{}, Skipped: []string{}, Scope: ScopeNone}
	var p *PendingExec
	if !eo.Own {
		if p, err = s.beginExec(ctx, "exec", eo.Call, hookMarker(s.ws.dir, s.ID(), jobMarker(job)), line, ""); err != nil {
			return nil, s.notStarted(ctx, line, err)
		}
		ans.Scope, ans.Unrecorded = p.Scope, p.Unrecorded
	}
	run, err := s.ShellStart(ctx, line)
	if err != nil {
		s.dropJobMarkers(context.WithoutCancel(ctx), false, job)
		return nil, s.notStarted(ctx, line, err)
	}
	ans.Run = run.ID()
	out := s.runShell(ctx, line, eo)
	ans.ExitCode = out.exit
	finish := run.finishTails
	if errors.Is(ctx.Err(), context.Canceled) {
		// Its owner stopped it (a cancel, a stop, the session's close):
		// the shell history says cancelled, not the killed line's exit.
		finish = run.finishCancelled
	}
	bg := context.WithoutCancel(ctx)
	if err := finish(bg, out.exit, out.stdout.tail(), out.stderr.tail()); err != nil {
		s.noticef("the background line ran, but its end could not be kept in the shell history: %v", err)
	}
	if ans.Output, err = s.PutOutput(bg, ids.ShellLabel(line), bytes.NewReader(out.all.bytes())); err != nil {
		s.noticef("the background line's output could not be kept: %v", err)
	}
	if p != nil && p.Scope != ScopeNone && p.Unrecorded == "" {
		rec, err := s.SettleChange(bg, jobMarker(job))
		switch {
		case err != nil:
			s.noticef("the background line ran, but its changes could not be recorded: %v", err)
		case rec != nil:
			ans.Snapshot, ans.Files, ans.Skipped = rec.Snapshot, rec.Files, rec.Skipped
		}
	}
	return ans, out.err
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
	fsys := s.ws.s.fsys
	var stale []PendingExec
	for _, job := range jobs {
		name := hookMarker(s.ws.dir, s.ID(), jobMarker(job))
		b, err := vfs.ReadFile(fsys, name)
		if err != nil {
			continue
		}
		var p PendingExec
		if ran && json.Unmarshal(b, &p) == nil && p.Kind == markerExec && changes.ValidSnapID(p.ID) {
			stale = append(stale, p)
		}
		fsys.Remove(name)
		fsys.Remove(execTreeName(name))
	}
	s.closeStaleExecs(ctx, stale)
	s.sweepUnits()
}

// TaskControl is the task_control tool as the session's owner answers it:
// list and status read the ledger; cancel marks work cancelling and
// cancels it (it shows cancelling until it settles); background promotes
// a waited agent task, under task auto only.
func (s *Session) TaskControl(ctx context.Context, q TaskControlRequest) (TaskControlAnswer, error) {
	if err := ctx.Err(); err != nil {
		return TaskControlAnswer{}, err
	}
	cfg, err := s.config()
	if err != nil {
		return TaskControlAnswer{}, err
	}
	r, err := s.runner()
	if err != nil {
		return TaskControlAnswer{}, err
	}
	a, err := r.Control(q, func() error { return cfg.Agent.Promote(ExecPersistent) })
	return a, bgworkError(err)
}

// Running counts the session's live background work by type: agent tasks
// (and workflow runs) and shell jobs, for the REPL's footer.
func (s *Session) Running() (tasks, shells int) {
	s.work.mu.Lock()
	r := s.work.runner
	s.work.mu.Unlock()
	if r == nil {
		return 0, 0
	}
	for _, w := range r.Ledger().State().Works() {
		if !w.Live() {
			continue
		}
		if w.Type == bgwork.TypeShell {
			shells++
		} else {
			tasks++
		}
	}
	return tasks, shells
}

// StopAll stops all of the session's tasks and workflows: the stop is
// recorded first, then owned work is cancelled; results and reports that
// come later are kept but wake nothing until the next user turn (which
// Append of a user item records). It returns the work it cancelled.
func (s *Session) StopAll(ctx context.Context) ([]BackgroundWork, error) {
	r, err := s.runner()
	if err != nil {
		return nil, err
	}
	ws, err := r.StopAll()
	return ws, bgworkError(err)
}

// Stopped reports whether automatic continuation is stopped (StopAll, and
// no user turn since), as the journal says.
func (s *Session) Stopped() (bool, error) {
	r, err := s.runner()
	if err != nil {
		return false, err
	}
	return r.Ledger().Stopped(), nil
}

// userTurn re-enables automatic continuation after a stop, when the
// ledger is open (a session that ran no background work has none to
// re-enable).
func (s *Session) userTurn() {
	s.work.mu.Lock()
	r := s.work.runner
	s.work.mu.Unlock()
	if r != nil {
		if err := r.Ledger().UserTurn(); err != nil {
			s.noticef("the end of a stop of background work could not be recorded: %v", err)
		}
	}
}

// closeWork cancels and drains the session's background work, delivers
// what settled, and closes the ledger and the inbox: Close's first step.
func (s *Session) closeWork() {
	s.work.mu.Lock()
	r, box, was := s.work.runner, s.work.box, s.work.closed
	s.work.closed = true
	s.work.mu.Unlock()
	if was || r == nil && box == nil {
		return
	}
	if r != nil {
		s.sweepDeadJobs()
		if err := r.Close(context.Background()); err != nil {
			s.noticef("background work could not be drained: %v", err)
		}
		s.closeLocalTasks(r)
	}
	if _, err := s.deliver(context.Background(), r, box); err != nil {
		s.noticef("background results could not be delivered; the next open delivers them: %v", err)
	}
	if r != nil {
		r.Ledger().Close()
	}
	if box != nil {
		box.Close()
	}
}

// closeLocalTasks ends the tasks of this process (not held) cancelled
// with the session, in their records and in the ledger, before the ledger
// closes (tasks.Log.Close would end their records only).
func (s *Session) closeLocalTasks(r *bgwork.Runner) {
	s.mu.Lock()
	tl := s.tasks
	s.mu.Unlock()
	if tl == nil {
		return
	}
	for _, w := range r.Ledger().State().Works() {
		if run := tl.Running(w.ID); run != nil && w.Type == bgwork.TypeTask && w.Live() && !w.Held {
			if err := s.endTask(run, TaskCancelled); err != nil {
				s.noticef("task %s could not be ended with the session: %v", w.ID, err)
			}
		}
	}
}

// Deliver puts into the conversation what the session's background work
// and its inbox owe it, in order and once each (across a kill -9 too:
// engine/internal/bgwork and engine/internal/inbox, "Ordering"), and
// returns those items: a job's or a task's result as a tool_result naming
// it (Item.Task; answering its call when the call is on the head's path),
// a child's report as a report item, a cross-session message as a message
// item. It opens the ledger, and with it settles as interrupted the work a
// crashed process left running. Results owed to a child task go to that
// child, not here.
func (s *Session) Deliver(ctx context.Context) ([]Item, error) {
	r, err := s.runner()
	if err != nil {
		return nil, err
	}
	s.sweepDeadJobs()
	box, err := s.inbox()
	if err != nil {
		return nil, err
	}
	return s.deliver(ctx, r, box)
}

func (s *Session) deliver(ctx context.Context, r *bgwork.Runner, box *inbox.Inbox) ([]Item, error) {
	k := &itemSink{s: s}
	var errs []error
	if r != nil {
		_, err := r.Ledger().Deliver(ctx, "", ledgerSink{k})
		errs = append(errs, bgworkError(err))
	}
	if box != nil {
		_, err := box.Deliver(ctx, inboxSink{k})
		errs = append(errs, err)
	}
	return k.put, errors.Join(errs...)
}

// inbox is the session's inbox, opened on first use and watched: a
// message from another process wakes OnBackground's callers.
func (s *Session) inbox() (*inbox.Inbox, error) {
	w := &s.work
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.box != nil || w.closed {
		return w.box, nil
	}
	box, err := inbox.Open(s.ws.s.fsys, inboxName(s.ws.dir, s.ID()), inbox.Options{Now: s.ws.s.Now, NewItem: newItemID})
	if err != nil {
		return nil, err
	}
	w.box = box
	go box.Watch(s.closeContext(), s.wakeUp)
	return box, nil
}

// itemSink is the session's conversation as the ledger and the inbox
// deliver into it.
type itemSink struct {
	s   *Session
	put []Item
}

func (k *itemSink) Has(ctx context.Context, item string) (bool, error) {
	k.s.mu.Lock()
	defer k.s.mu.Unlock()
	return k.s.st.Items[item] != nil, nil
}

func (k *itemSink) Sync(ctx context.Context) error { return k.s.Commit(ctx) }

type (
	ledgerSink struct{ *itemSink }
	inboxSink  struct{ *itemSink }
)

func (k ledgerSink) Put(ctx context.Context, d bgwork.Delivery) error { return k.add(ctx, d) }
func (k inboxSink) Put(ctx context.Context, d inbox.Delivery) error   { return k.add(ctx, d) }

func (k *itemSink) add(ctx context.Context, d any) error {
	var it Item
	switch d := d.(type) {
	case bgwork.Delivery:
		it = Item{ID: d.Item, Task: d.Work}
		if d.Kind == bgwork.DeliverReport {
			it.Type, it.Text, it.Title, it.Blocked = Report, d.Message, d.Title, d.Blocked
		} else {
			it.Type, it.Text = ToolResult, fmt.Sprintf("%s %s: %s", d.Work, d.Outcome, d.Text)
			if d.Output != "" {
				it.Outputs = []string{d.Output}
			}
		}
		k.s.mu.Lock()
		defer k.s.mu.Unlock()
		if d.Call != "" && it.Type == ToolResult && k.s.st.OnHeadPath(d.Call) {
			it.Call = d.Call
		}
	case inbox.Delivery:
		it = Item{ID: d.Item, Type: Message, Text: d.Text, From: d.From}
		k.s.mu.Lock()
		defer k.s.mu.Unlock()
	}
	out, err := k.s.add(ctx, it)
	if err == nil {
		k.put = append(k.put, out)
	}
	return err
}

// Report records child task's report_to_parent as a report item of this
// session's conversation (Item.Task, Title, Blocked; Text the message),
// durable when it returns: the ledger records it and delivers it, as it
// delivers results. A blocked report ends the task, blocked (a
// non-success outcome): the Runner ends work it runs; a task of the
// plumbing (task.go) is ended here.
func (s *Session) Report(ctx context.Context, task string, in ReportInput) (Item, error) {
	if _, err := CheckReport(in); err != nil {
		return Item{}, err
	}
	r, err := s.runner()
	if err != nil {
		return Item{}, err
	}
	d, err := r.Report(task, in)
	if err != nil {
		return Item{}, bgworkError(err)
	}
	its, err := s.Deliver(ctx)
	var it *Item
	for i := range its {
		if its[i].ID == d.Item {
			it = &its[i]
		}
	}
	if it == nil {
		return Item{}, errors.Join(err, fmt.Errorf("engine: the report of %s is recorded, not delivered yet", task))
	}
	if w, _ := r.Ledger().State().Work(task); w.Blocked && w.Live() && !slices.Contains(r.Running(), task) {
		if err := s.endTaskNamed(task, TaskBlocked); err != nil {
			return *it, err
		}
	}
	return *it, nil
}

// WorkStart says what a task or workflow call starts (StartWork).
type WorkStart struct {
	// Type is "task" (a sub-agent) or "workflow" (a workflow run).
	Type string
	// Label names it: a task's id is made from it (implement-footer-chips);
	// a workflow gets a random word-list id (neat-wanted-cowbird) and keeps
	// it for good.
	Label string
	// Owner is "" for the session, or the running child task it reports to.
	Owner string
	// Call is the tool_call item that starts it.
	Call string
	// Background is the call's background argument (task auto).
	Background bool
}

// WorkFunc is the work a runtime runs for a task or workflow (its model's
// turns); it returns how it ended, and ends when its ctx does.
type WorkFunc = bgwork.Func

// WorkResult is how a run of work ended.
type WorkResult = bgwork.Result

// WorkCall is started work: its Receipt, and Wait for a call that waits.
type WorkCall = bgwork.Call

// StartWork admits a task or workflow run under the agent section of
// config.json and runs fn in a goroutine: a call that waits gets its
// result from WorkCall.Wait (task_control background promotes it, under
// task auto), one answered with a receipt gets its result through
// Deliver. Its reports are Session.Report. It needs a runtime with a
// model: the REPL and the plumbing start no agent work this way.
func (s *Session) StartWork(ctx context.Context, w WorkStart, fn WorkFunc) (*WorkCall, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cfg, err := s.config()
	if err != nil {
		return nil, err
	}
	d, err := cfg.Agent.TaskCall(ExecPersistent, w.Background)
	if err != nil {
		return nil, err
	}
	r, err := s.runner()
	if err != nil {
		return nil, err
	}
	a := bgwork.Admission{Type: w.Type, Owner: w.Owner, Call: w.Call, Label: w.Label, Background: d.Receipt}
	if w.Type == bgwork.TypeTask {
		st := r.Ledger().State()
		a.ID = ids.Slug(w.Label, func(c string) bool { _, ok := st.Work(c); return ok })
	}
	c, err := r.Start(a, 0, fn)
	return c, bgworkError(err)
}
