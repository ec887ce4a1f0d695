package bgwork

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"cairn/internal/vfs"
)

// gate is a Func that waits for its release or its ctx, and then for its
// release again when told to linger, so a test can see a state in between.
type gate struct {
	release chan struct{}
	started chan struct{}
	linger  bool // after ctx ends, wait for release too
	res     Result
}

func newGate() *gate { return &gate{release: make(chan struct{}), started: make(chan struct{})} }

func (g *gate) fn(ctx context.Context) Result {
	close(g.started)
	select {
	case <-g.release:
		return g.res
	case <-ctx.Done():
	}
	if g.linger {
		<-g.release
	}
	return Result{}
}

type settledLog struct {
	mu  sync.Mutex
	ids []string
	dl  []*Delivery
}

func (s *settledLog) add(w Work, d *Delivery) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids = append(s.ids, w.ID+":"+w.Outcome)
	s.dl = append(s.dl, d)
}

func (s *settledLog) get() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.ids...)
}

func newRunner(t *testing.T) (*Runner, *settledLog, vfs.FS) {
	t.Helper()
	m := vfs.NewMem()
	l, _ := openLedger(t, m, Options{})
	log := &settledLog{}
	r := NewRunner(l, RunnerOptions{Settled: log.add})
	t.Cleanup(func() { r.Close(context.Background()) })
	return r, log, m
}

// TestRunnerWaitedAndBackground: a waited call answers with its result and
// owes nothing; a background call answers with its receipt and owes its
// result, which the Settled hook hears of.
func TestRunnerWaitedAndBackground(t *testing.T) {
	r, log, _ := newRunner(t)
	c := must(r.Start(Admission{ID: "plan", Type: TypeTask, Call: "i-1"}, 0, func(context.Context) Result {
		return Result{Text: "the plan"}
	}))(t)
	res := must(c.Wait(context.Background()))(t)
	if res.Outcome != Succeeded || res.Text != "the plan" {
		t.Fatalf("%+v", res)
	}
	g := newGate()
	g.res = Result{Text: "built"}
	bc := must(r.Start(Admission{ID: "shell-make", Type: TypeShell, Call: "i-2", Background: true}, 0, g.fn))(t)
	var pe *PromotedError
	if _, err := bc.Wait(context.Background()); !errors.As(err, &pe) || pe.Receipt.Work != "shell-make" {
		t.Fatalf("a background call waits: %v", err)
	}
	<-g.started
	if st := must(r.Ledger().Status("shell-make"))(t); st.State != StateRunning {
		t.Fatalf("%+v", st)
	}
	close(g.release)
	must0(t, r.Drain(context.Background()))
	if got := strings.Join(log.get(), " "); got != "plan:succeeded shell-make:succeeded" {
		t.Fatalf("settled %s", got)
	}
	if log.dl[0] != nil || log.dl[1] == nil || log.dl[1].Text != "built" || log.dl[1].Call != "i-2" {
		t.Fatalf("deliveries %+v", log.dl)
	}
	checkFold(t, r.Ledger())
}

// TestRunnerPromote: a waited task moved to the background answers its
// caller with a receipt at once, goes on, and owes its result; the
// policy's refusal writes nothing; a shell job is never promoted.
func TestRunnerPromote(t *testing.T) {
	r, _, _ := newRunner(t)
	g := newGate()
	c := must(r.Start(Admission{ID: "refactor", Type: TypeTask, Call: "i-1"}, 0, g.fn))(t)
	<-g.started
	done := make(chan error, 1)
	go func() {
		_, err := c.Wait(context.Background())
		done <- err
	}()
	noAuto := errors.New("task_execution is sync")
	_, err := r.Control(Request{Action: ActionBackground, TaskID: "refactor"}, func() error { return noAuto })
	if !errors.Is(err, noAuto) {
		t.Fatalf("%v", err)
	}
	if w, _ := r.Ledger().State().Work("refactor"); w.Background {
		t.Fatal("a refused promotion was recorded")
	}
	a := must(r.Control(Request{Action: ActionBackground, TaskID: "refactor"}, func() error { return nil }))(t)
	if a.Receipt == nil || a.Receipt.Work != "refactor" || !a.Receipt.Background {
		t.Fatalf("%+v", a)
	}
	var pe *PromotedError
	if err := <-done; !errors.As(err, &pe) {
		t.Fatalf("the waiting caller got %v", err)
	}
	if w, _ := r.Ledger().State().Work("refactor"); w.State != StateRunning {
		t.Fatalf("promotion restarted or ended it: %+v", w)
	}
	close(g.release)
	must0(t, r.Drain(context.Background()))
	if owed := r.Ledger().State().Owed(""); len(owed) != 1 || owed[0].Work != "refactor" {
		t.Fatalf("owed %+v", owed)
	}
	gs := newGate()
	must(r.Start(Admission{ID: "shell-sleep", Type: TypeShell}, 0, gs.fn))(t)
	_, err = r.Control(Request{Action: ActionBackground, TaskID: "shell-sleep"}, nil)
	wantErr(t, err, ErrRefused)
	close(gs.release)
}

// TestRunnerCancelShowsCancelling: a cancelled task reads cancelling
// until its Func returns, then settles cancelled.
func TestRunnerCancelShowsCancelling(t *testing.T) {
	r, _, _ := newRunner(t)
	g := newGate()
	g.linger = true
	must(r.Start(Admission{ID: "review", Type: TypeTask, Background: true}, 0, g.fn))(t)
	<-g.started
	a := must(r.Control(Request{Action: ActionCancel, TaskID: "review"}, nil))(t)
	if a.Work == nil || a.Work.State != StateCancelling {
		t.Fatalf("%+v", a)
	}
	st := must(r.Control(Request{Action: ActionStatus, TaskID: "review"}, nil))(t)
	if st.Status.State != StateCancelling {
		t.Fatalf("status %+v", st.Status)
	}
	_, err := r.Continue("review", "i-2", false, 0, g.fn)
	wantErr(t, err, ErrRefused) // a cancelling task is not resumed
	close(g.release)
	must0(t, r.Drain(context.Background()))
	w, _ := r.Ledger().State().Work("review")
	if w.State != StateSettled || w.Outcome != Cancelled {
		t.Fatalf("%+v", w)
	}
	// Settled: it continues from its history, under its id.
	c := must(r.Continue("review", "i-2", false, 0, func(context.Context) Result { return Result{Text: "again"} }))(t)
	if res := must(c.Wait(context.Background()))(t); res.Text != "again" {
		t.Fatalf("%+v", res)
	}
}

// TestRunnerBlockedReport: a blocked report ends the child, its shell job
// cancelled and drained before it settles blocked; the parent is owed the
// report, then the blocked result. The job's result went to the child.
func TestRunnerBlockedReport(t *testing.T) {
	r, log, _ := newRunner(t)
	child := newGate()
	job := newGate()
	must(r.Start(Admission{ID: "child", Type: TypeTask, Background: true}, 0, child.fn))(t)
	<-child.started
	must(r.Start(Admission{ID: "shell-cargo-test", Type: TypeShell, Owner: "child", Background: true}, 0, job.fn))(t)
	<-job.started
	_, err := r.Report("child", ReportInput{Title: strings.Repeat("x", 81), Message: "m"})
	wantErr(t, err, ErrInvalid)
	d := must(r.Report("child", ReportInput{Message: "Need the staging password to go on", Blocked: true}))(t)
	if d.Owner != "" || d.Title != "Need the staging password to go on" || !d.Blocked {
		t.Fatalf("%+v", d)
	}
	must0(t, r.Drain(context.Background()))
	if got := strings.Join(log.get(), " "); got != "shell-cargo-test:cancelled child:blocked" {
		t.Fatalf("settled %s: the job first, then the child, blocked", got)
	}
	owedChild := r.Ledger().State().Owed("child")
	owed := r.Ledger().State().Owed("")
	if len(owedChild) != 1 || owedChild[0].Work != "shell-cargo-test" ||
		len(owed) != 2 || owed[0].Kind != DeliverReport || owed[1].Outcome != Blocked {
		t.Fatalf("owed to the child %+v, to the session %+v", owedChild, owed)
	}
	checkFold(t, r.Ledger())
}

// TestRunnerStopAll: stop all cancels the live work and what settles from
// then on does not wake the session, until the next user turn.
func TestRunnerStopAll(t *testing.T) {
	r, _, _ := newRunner(t)
	a, b := newGate(), newGate()
	must(r.Start(Admission{ID: "a", Type: TypeTask, Background: true}, 0, a.fn))(t)
	must(r.Start(Admission{ID: "shell-b", Type: TypeShell, Background: true}, 0, b.fn))(t)
	<-a.started
	<-b.started
	live := must(r.StopAll())(t)
	if len(live) != 2 {
		t.Fatalf("%+v", live)
	}
	must0(t, r.Drain(context.Background()))
	for _, d := range r.Ledger().State().Owed("") {
		if d.Wake || d.Outcome != Cancelled {
			t.Fatalf("a result after stop all: %+v", d)
		}
	}
	if !r.Ledger().Stopped() {
		t.Fatal("not stopped")
	}
	must0(t, r.Ledger().UserTurn())
	c := must(r.Start(Admission{ID: "c", Type: TypeTask, Background: true}, 0, func(context.Context) Result { return Result{} }))(t)
	_ = c
	must0(t, r.Drain(context.Background()))
	owed := r.Ledger().State().Owed("")
	if last := owed[len(owed)-1]; last.Work != "c" || !last.Wake {
		t.Fatalf("after the user turn: %+v", last)
	}
}

// TestRunnerCloseDrains: closing cancels every running piece of work and
// waits for each to settle; nothing starts after it.
func TestRunnerCloseDrains(t *testing.T) {
	r, log, _ := newRunner(t)
	for _, id := range []string{"a", "b", "c"} {
		g := newGate()
		must(r.Start(Admission{ID: id, Type: TypeShell, Background: true}, 0, g.fn))(t)
		<-g.started
	}
	must0(t, r.Close(context.Background()))
	if len(r.Running()) != 0 || len(log.get()) != 3 {
		t.Fatalf("running %v, settled %v", r.Running(), log.get())
	}
	for _, w := range r.Ledger().State().Works() {
		if w.State != StateSettled || w.Outcome != Cancelled || !strings.Contains(w.Text, "closed") {
			t.Fatalf("%+v", w)
		}
	}
	_, err := r.Start(Admission{ID: "d", Type: TypeShell}, 0, func(context.Context) Result { return Result{} })
	wantErr(t, err, ErrClosed)
}

// TestRunnerDeadline: the hard deadline ends a run that does not end by
// itself; it settles failed, saying so.
func TestRunnerDeadline(t *testing.T) {
	r, _, _ := newRunner(t)
	g := newGate()
	c := must(r.Start(Admission{ID: "shell-sleep", Type: TypeShell}, time.Millisecond, g.fn))(t)
	res := must(c.Wait(context.Background()))(t)
	if res.Outcome != Failed || !strings.Contains(res.Text, "deadline") {
		t.Fatalf("%+v", res)
	}
}

// TestRunnerWaitCancelled: a caller that stops waiting cancels the work
// and gets its cancelled result.
func TestRunnerWaitCancelled(t *testing.T) {
	r, _, _ := newRunner(t)
	g := newGate()
	c := must(r.Start(Admission{ID: "t", Type: TypeTask}, 0, g.fn))(t)
	<-g.started
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := must(c.Wait(ctx))(t)
	if res.Outcome != Cancelled {
		t.Fatalf("%+v", res)
	}
	if w, _ := r.Ledger().State().Work("t"); w.Outcome != Cancelled {
		t.Fatalf("%+v", w)
	}
}

// TestCheckRequest: every action but list needs a task_id; list takes
// none; a cursor and a limit are list's.
func TestCheckRequest(t *testing.T) {
	for _, c := range []struct {
		q  Request
		ok bool
	}{
		{Request{Action: ActionList}, true},
		{Request{Action: ActionList, Cursor: "x", Limit: 5}, true},
		{Request{Action: ActionStatus, TaskID: "t"}, true},
		{Request{Action: ActionCancel, TaskID: "t"}, true},
		{Request{Action: ActionBackground, TaskID: "t"}, true},
		{Request{Action: ActionList, TaskID: "t"}, false},
		{Request{Action: ActionStatus}, false},
		{Request{Action: ActionCancel}, false},
		{Request{Action: ActionBackground}, false},
		{Request{Action: ActionStatus, TaskID: "../t"}, false},
		{Request{Action: ActionStatus, TaskID: "t", Limit: 3}, false},
		{Request{Action: ActionCancel, TaskID: "t", Cursor: "c"}, false},
		{Request{Action: "resume", TaskID: "t"}, false},
		{Request{}, false},
	} {
		err := CheckRequest(c.q)
		if (err == nil) != c.ok || err != nil && !errors.Is(err, ErrInvalid) {
			t.Errorf("%+v: %v", c.q, err)
		}
	}
	// A reader that does not own the session answers list and status only.
	st := newState()
	if _, err := st.Query(Request{Action: ActionCancel, TaskID: "t"}); !errors.Is(err, ErrRefused) {
		t.Fatalf("%v", err)
	}
	a := must(st.Query(Request{Action: ActionList}))(t)
	if b, _ := a.MarshalJSON(); string(b) != `{"tasks":[]}` {
		t.Fatalf("%s", b)
	}
}
