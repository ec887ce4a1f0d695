package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"cairn/engine/ids"
	"cairn/engine/internal/bgwork"
	"cairn/engine/internal/callrec"
	"cairn/engine/internal/hookmark"
	"cairn/engine/internal/inbox"
)

// A session's background work as its owner runs it: the ledger's Runner
// (engine/internal/bgwork) and the inbox (engine/internal/inbox), opened
// on first use. Their results, reports and messages reach the
// conversation as items through Deliver, in order and once each. Close
// cancels and drains the work before the session is saved. The mechanisms
// are in the packages; these are their entry points.

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
	w.dead = append(w.dead, bgwork.ShellIDs(cut)...) // their markers: sweepDeadJobs
	// No job of this process has run yet: a job marker left is of one a
	// crash cut off after its result was settled and before its record
	// was (execBackground's later).
	w.dead = append(w.dead, hookmark.LeftJobs(s.ws.s.fsys, hooksDir(s.ws.dir, s.ID()), w.dead)...)
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
		EndHeld: s.endHeld,
	})
	return w.runner, nil
}

// opened is the session's Runner when it is open, else nil.
func (s *Session) opened() *bgwork.Runner {
	s.work.mu.Lock()
	defer s.work.mu.Unlock()
	return s.work.runner
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

// ShellOptions change how Shell runs a shell call (callrec.ShellOptions).
type ShellOptions = callrec.ShellOptions

// ShellAnswer is what a shell call answered (callrec.ShellAnswer).
type ShellAnswer = callrec.ShellAnswer

// Shell runs a shell call under config.json's agent section: waited for
// (Exec, killed at the timeout) or admitted as a background job answered
// with a receipt, its result delivered later (Deliver). The receipt comes
// once the job has begun (its files' state before it taken, its shell
// started; after a file revert under way), unless that would wait for a
// call of the session: then at once.
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
	rc, err := s.beginShellJob(r, id, line, o.ExecOptions, d.Deadline)
	if err != nil {
		return ShellAnswer{}, err
	}
	return ShellAnswer{Receipt: rc}, nil
}

// beginShellJob admits background shell line as job id and runs it, with
// deadline as its hard deadline.
func (s *Session) beginShellJob(r *bgwork.Runner, id, line string, eo ExecOptions, deadline time.Duration) (*Receipt, error) {
	eo.Stdout, eo.Stderr = nil, nil // its end is reported, not its output as it runs
	// Where it starts: the newest item now, not when its goroutine runs
	// (a prompt may be written meanwhile; on a remote workspace's host,
	// the client's next call moves SessionOptions.Elsewhere on).
	at := s.newestItem()
	// The receipt waits until the job has begun (execBackground's begun),
	// so a call made next, which may wait for what the job does, cannot
	// hold back its start.
	begun := make(chan struct{})
	var once sync.Once
	c, err := r.Start(bgwork.Admission{ID: id, Type: bgwork.TypeShell, Call: eo.Call, Label: line, Background: true, Turn: s.turns()}, deadline,
		func(ctx context.Context) bgwork.Result {
			return s.shellJob(ctx, id, line, eo, at, func() { once.Do(func() { close(begun) }) })
		})
	if err != nil {
		return nil, bgworkError(err)
	}
	<-begun
	return &c.Receipt, nil
}

// TaskControl is the task_control tool as the session's owner answers it:
// list, status, cancel, and background (a waited agent task, under task
// auto).
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
	r := s.opened()
	if r == nil {
		return 0, 0
	}
	return r.Ledger().State().Running()
}

// Waiting reports whether the session's background work will wake its
// agent: work runs or a waking result is owed, and continuation is not
// stopped.
func (s *Session) Waiting() bool {
	r := s.opened()
	return r != nil && r.Ledger().Waking()
}

// RunningWork is the session's live background work (running or
// cancelling), oldest first: what the REPL's shell modal lists.
func (s *Session) RunningWork() []BackgroundWork {
	r := s.opened()
	if r == nil {
		return nil
	}
	return r.Ledger().State().LiveWorks()
}

// StopAll stops the session's tasks and workflows, recorded first; later
// results wake nothing until the next user turn. It returns the work it
// cancelled.
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
	r := s.opened()
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
	for _, id := range r.Ledger().State().LocalTasks() {
		if run := tl.Running(id); run != nil {
			if err := s.endTask(run, TaskCancelled); err != nil {
				s.noticef("task %s could not be ended with the session: %v", id, err)
			}
		}
	}
}

// Deliver appends what the session's background work and inbox owe it, in
// order and once each (package bgwork's "Ordering"), and returns those
// items: results naming their work (Item.Task), reports, messages.
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
	return k.s.st.Item(item) != nil, nil
}

func (k *itemSink) Sync(ctx context.Context) error { return k.s.Commit(ctx) }

type (
	ledgerSink struct{ *itemSink }
	inboxSink  struct{ *itemSink }
)

func (k ledgerSink) Put(ctx context.Context, d bgwork.Delivery) error { return k.add(ctx, d.AsItem()) }
func (k inboxSink) Put(ctx context.Context, d inbox.Delivery) error   { return k.add(ctx, d.AsItem()) }

// add appends it; the call a result answers is named only while it is on
// the head's path.
func (k *itemSink) add(ctx context.Context, it Item) error {
	k.s.mu.Lock()
	defer k.s.mu.Unlock()
	if it.Call != "" && !k.s.st.OnHeadPath(it.Call) {
		it.Call = ""
	}
	out, err := k.s.add(ctx, it)
	if err == nil {
		k.put = append(k.put, out)
	}
	return err
}

// Report records child task's report_to_parent as a report item of this
// conversation, durable when it returns and delivered as results are. A
// blocked report ends the task, blocked.
func (s *Session) Report(ctx context.Context, task string, in ReportInput) (Item, error) {
	if _, err := checkReport(in); err != nil {
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
	if w, _ := r.Ledger().Work(task); w.Blocked && w.Live() && !slices.Contains(r.Running(), task) {
		if err := s.endTaskNamed(task, TaskBlocked); err != nil {
			return *it, err
		}
	}
	return *it, nil
}
