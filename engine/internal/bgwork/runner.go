package bgwork

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Func is the work a Runner runs; it returns how it ended. Its ctx ends
// when the work is cancelled, stopped, blocked, past its deadline, or the
// Runner closes; a Func that then returns a Result without an Outcome
// settles cancelled (failed past its deadline).
type Func func(ctx context.Context) Result

// RunnerOptions tune a Runner.
type RunnerOptions struct {
	// Settled is called once a piece of work settled (its line written),
	// with the delivery it owes, if any: where a runtime delivers at its
	// next safe boundary. It may be nil.
	Settled func(w Work, d *Delivery)
	// EndHeld ends held work that runs in no process (a task of the
	// plumbing, whose caller ends it) when it is cancelled or stopped: the
	// caller records its end, and settles it in the ledger (Ledger.End).
	// Without it, such work shows cancelling until its caller ends it.
	EndHeld func(id string) error
}

// Runner runs admitted work in goroutines over a Ledger and settles it:
// the part of background work a session's owner runs. The work is the
// session's, not a daemon's: Close cancels and drains all of it.
type Runner struct {
	l    *Ledger
	opt  RunnerOptions
	base context.Context
	stop context.CancelFunc

	mu     sync.Mutex
	runs   map[string]*run
	wg     sync.WaitGroup
	closed bool
	// unrecorded holds results whose settle line could not be written,
	// and abandoned the admissions whose line could not be written: both
	// are put right by Reopen.
	unrecorded map[string]Result
	abandoned  map[string]bool
}

// run is one running piece of work.
type run struct {
	cancel context.CancelCauseFunc
	done   chan struct{}
	call   *Call
	after  func() // its Result's After, run by ended
}

// Causes of a run's end, as context.Cause says them.
var (
	errCancelled = errors.New("cancelled")
	errBlocked   = errors.New("blocked: it reported that it cannot go on")
	errClosed    = errors.New("the session closed")
)

// NewRunner is a Runner over l.
func NewRunner(l *Ledger, opt RunnerOptions) *Runner {
	base, stop := context.WithCancel(context.Background())
	return &Runner{l: l, opt: opt, base: base, stop: stop, runs: map[string]*run{},
		unrecorded: map[string]Result{}, abandoned: map[string]bool{}}
}

// Ledger is the runner's ledger.
func (r *Runner) Ledger() *Ledger { return r.l }

// Start admits a and runs fn in a goroutine of its own, with deadline as
// its hard deadline (0: none). fn never runs when the admission cannot be
// recorded. A Background admission returns its receipt; the caller of a
// waited one calls Wait.
func (r *Runner) Start(a Admission, deadline time.Duration, fn Func) (*Call, error) {
	return r.begin(a.ID, deadline, fn, a.Background, func() (Receipt, error) { return r.l.Admit(a) })
}

// Continue runs settled agent task id (or paused workflow id) again from
// its saved history under the same id, started by call (Ledger.Continue).
func (r *Runner) Continue(id, call string, background bool, deadline time.Duration, fn Func) (*Call, error) {
	return r.begin(id, deadline, fn, background, func() (Receipt, error) { return r.l.Continue(id, call, background) })
}

func (r *Runner) begin(id string, deadline time.Duration, fn Func, background bool, admit func() (Receipt, error)) (*Call, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, ErrClosed
	}
	if r.runs[id] != nil {
		return nil, refused("%s is still pausing: its run has not ended yet", id)
	}
	rec, err := admit()
	if err != nil {
		if errors.Is(err, ErrWrite) && id != "" {
			r.abandoned[id] = true
		}
		return nil, err
	}
	ctx, cancel := context.WithCancelCause(r.base)
	var stopTimer context.CancelFunc = func() {}
	if deadline > 0 {
		ctx, stopTimer = context.WithTimeoutCause(ctx, deadline, fmt.Errorf("its hard deadline of %s passed", deadline))
	}
	c := &Call{Receipt: rec, r: r}
	if !background {
		c.out = make(chan callOut, 1)
	}
	ru := &run{cancel: cancel, done: make(chan struct{}), call: c}
	r.runs[rec.Work] = ru
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		res := fn(ctx)
		stopTimer()
		ru.after, res.After = res.After, nil
		r.finish(rec.Work, ru, ctx, res)
	}()
	return c, nil
}

// finish settles work id once its Func returned: the work it owns is
// cancelled and drained first, then its line written, then its waiting
// caller answered. A paused workflow whose Func returned no outcome stays
// paused, and work settled meanwhile (a paused workflow cancelled) is
// left as it reads.
func (r *Runner) finish(id string, ru *run, ctx context.Context, res Result) {
	r.drainOwned(id)
	w, _ := r.l.Work(id)
	switch {
	case w.State == StatePaused && res.Outcome == "":
		r.ended(id, ru, callOut{paused: true}, w, nil)
		return
	case w.State == StateSettled:
		r.ended(id, ru, callOut{res: Result{Outcome: w.Outcome, Text: w.Text, Output: w.Output}}, w, nil)
		return
	}
	if res.Outcome == "" {
		res.Outcome = Succeeded
		if ctx.Err() != nil {
			res.Outcome = Cancelled
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				res.Outcome = Failed
			}
			if res.Text == "" {
				res.Text = context.Cause(ctx).Error()
			}
		}
	}
	d, err := r.l.Settle(id, res)
	if err != nil {
		r.mu.Lock()
		r.unrecorded[id] = res
		r.mu.Unlock()
		r.ended(id, ru, callOut{res: res}, Work{}, nil)
		return
	}
	w, _ = r.l.Work(id)
	r.ended(id, ru, callOut{res: res}, w, d)
}

// ended takes run ru of id off the runs, answers its waiting caller with
// o and, when w is set, tells the Settled hook (a runtime's next safe
// boundary: the work settled or paused).
func (r *Runner) ended(id string, ru *run, o callOut, w Work, d *Delivery) {
	ru.cancel(nil)
	r.mu.Lock()
	if r.runs[id] == ru {
		delete(r.runs, id)
	}
	r.answer(ru.call, o)
	r.mu.Unlock()
	// Heard of before an owner waiting in drainOwned goes on, so the hook
	// hears of a child's jobs before the child. (Deliveries keep the
	// order of the lines, whatever order the hook hears in.)
	if w.ID != "" && r.opt.Settled != nil {
		r.opt.Settled(w, d)
	}
	if ru.after != nil {
		ru.after()
	}
	close(ru.done)
}

// answer gives a waiting caller its one answer, unless it has had it (a
// promotion came first); r.mu is held.
func (r *Runner) answer(c *Call, o callOut) {
	if c.out != nil && !c.answered {
		c.answered = true
		c.out <- o
	}
}

// drainOwned cancels the live work id owns and waits for it to settle,
// until none is left.
func (r *Runner) drainOwned(id string) {
	for {
		var wait []chan struct{}
		for _, w := range r.l.State().Works() {
			if w.Owner == id && w.Live() {
				if ru := r.cancel(w.ID, errCancelled); ru != nil {
					wait = append(wait, ru.done)
				}
			}
		}
		if len(wait) == 0 {
			return
		}
		for _, c := range wait {
			<-c
		}
	}
}

// cancel ends run id's context with cause, returning the run (nil when it
// does not run here).
func (r *Runner) cancel(id string, cause error) *run {
	r.mu.Lock()
	ru := r.runs[id]
	r.mu.Unlock()
	if ru != nil {
		ru.cancel(cause)
	}
	return ru
}

// Cancel marks work id cancelling and cancels its run; it shows
// cancelling until its Func returns and it settles.
func (r *Runner) Cancel(id string) (Work, error) {
	w, err := r.l.Cancel(id)
	if err != nil {
		return Work{}, err
	}
	if r.cancel(id, errCancelled) == nil && w.Held && w.Live() && r.opt.EndHeld != nil {
		if err := r.opt.EndHeld(id); err != nil {
			return w, err
		}
		w, _ = r.l.Work(id)
	}
	return w, nil
}

// Promote moves waited agent task id to the background (Ledger.Promote)
// and answers its waiting caller with the receipt.
func (r *Runner) Promote(id string) (Receipt, error) {
	rec, err := r.l.Promote(id)
	if err != nil {
		return Receipt{}, err
	}
	r.mu.Lock()
	if ru := r.runs[id]; ru != nil {
		r.answer(ru.call, callOut{promoted: &rec})
	}
	r.mu.Unlock()
	return rec, nil
}

// Pause pauses running workflow id: the pause line first (it reads
// paused from then on, and no longer counts as live), then its run's ctx
// ends with ErrPaused as its cause (Paused). Its Func saves what it needs
// and returns a Result without an Outcome; it stays paused, its own work
// cancelled and drained, until Continue runs it again under the same id.
// A Func that returns an outcome all the same settles with it.
func (r *Runner) Pause(id string) (Work, error) {
	if err := r.l.Pause(id); err != nil {
		return Work{}, err
	}
	r.cancel(id, ErrPaused)
	w, _ := r.l.Work(id)
	return w, nil
}

// Paused reports whether a Func's ctx ended because its workflow was
// paused.
func Paused(ctx context.Context) bool { return errors.Is(context.Cause(ctx), ErrPaused) }

// Report records child from's report_to_parent (CheckReport first). A
// blocked report ends the child: its run is cancelled, its own work
// cancelled and drained, and it settles blocked.
func (r *Runner) Report(from string, in ReportInput) (Delivery, error) {
	rep, err := CheckReport(in)
	if err != nil {
		return Delivery{}, err
	}
	d, err := r.l.Report(from, rep)
	if err != nil {
		return Delivery{}, err
	}
	if rep.Blocked {
		r.cancel(from, errBlocked)
	}
	return d, nil
}

// StopAll stops all of the session's work: the stop line first (what
// settles from here on does not wake its owner), then every live piece
// cancelled; held work that runs nowhere is ended through EndHeld. It does
// not wait; Drain does.
func (r *Runner) StopAll() ([]Work, error) {
	live, err := r.l.Stop()
	if err != nil {
		return nil, err
	}
	for _, w := range live {
		if _, err := r.l.Cancel(w.ID); err == nil {
			r.cancel(w.ID, errCancelled)
		}
	}
	if r.opt.EndHeld == nil {
		return live, nil
	}
	// Held work that runs nowhere is the session's too: its caller ends it.
	var errs []error
	for _, w := range r.l.State().Works() {
		if w.Held && w.Live() && r.cancel(w.ID, errCancelled) == nil {
			c, err := r.Cancel(w.ID)
			if err == nil {
				live = append(live, c)
			}
			errs = append(errs, err)
		}
	}
	return live, errors.Join(errs...)
}

// Running is the ids of the work running here.
func (r *Runner) Running() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.runs))
	for id := range r.runs {
		out = append(out, id)
	}
	return out
}

// Drain waits until no work runs here, or ctx ends.
func (r *Runner) Drain(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		r.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close cancels every piece of work running here and waits for each to
// settle (the session closes: seed "Stop and close"); nothing starts
// after it.
func (r *Runner) Close(ctx context.Context) error {
	r.mu.Lock()
	r.closed = true
	for id, ru := range r.runs {
		// A cancel line that cannot be written does not stop the cancel.
		// A paused workflow whose run is ending stays paused.
		if w, _ := r.l.Work(id); w.State != StatePaused {
			r.l.Cancel(id)
		}
		ru.cancel(errClosed)
	}
	r.mu.Unlock()
	return r.Drain(ctx)
}

// Reopen reopens the ledger after a failure (Ledger.Reopen) and puts
// right what the failure left: a result whose settle line was not
// written is settled now, an admission its caller was told had failed but
// whose line was written is abandoned, and live work that runs nowhere
// here (held work aside) is settled interrupted.
func (r *Runner) Reopen() error {
	if err := r.l.Reopen(); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var errs []error
	for _, w := range r.l.State().Works() {
		if !w.Live() || w.Held || r.runs[w.ID] != nil {
			continue
		}
		var err error
		switch res, ok := r.unrecorded[w.ID]; {
		case ok:
			_, err = r.l.Settle(w.ID, res)
		case r.abandoned[w.ID]:
			err = r.l.Abandon(w.ID, "not started: its admission could not be recorded")
		default:
			_, err = r.l.Settle(w.ID, Result{Outcome: Interrupted, Text: "interrupted: its result could not be recorded"})
		}
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	clear(r.unrecorded)
	clear(r.abandoned)
	return nil
}
