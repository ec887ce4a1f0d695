package bgwork

import (
	"context"
	"errors"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"cairn/engine/ids"
	"cairn/internal/vfs"
)

var wordID = regexp.MustCompile(`^[a-z]+-[a-z]+-[a-z]+(-[0-9]+)?$`)

// TestWorkflowIDs: a workflow gets a word-list id; ids collide into
// numeric suffixes within 64 characters; a run keeps its id across pause,
// resume and the journal's history.
func TestWorkflowIDs(t *testing.T) {
	m := vfs.NewMem()
	// The same seed draws the same words: collisions on purpose.
	seed := func() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }
	l, _ := openLedger(t, m, Options{Rand: seed()})
	first := must(l.Admit(Admission{Type: TypeWorkflow, Label: "nightly"}))(t).Work
	if !wordID.MatchString(first) || !ids.Valid(first) {
		t.Fatalf("workflow id %q", first)
	}
	l.opt.Rand = seed()
	second := must(l.Admit(Admission{Type: TypeWorkflow}))(t).Work
	l.opt.Rand = seed()
	third := must(l.Admit(Admission{Type: TypeWorkflow}))(t).Work
	if second != first+"-2" || third != first+"-3" {
		t.Fatalf("collisions gave %q %q after %q", second, third, first)
	}
	must0(t, l.Pause(first))
	if w, _ := l.State().Work(first); w.State != StatePaused || w.Live() {
		t.Fatalf("paused: %+v", w)
	}
	rec := must(l.Continue(first, "i-resume", true))(t)
	if rec.Work != first {
		t.Fatalf("resume changed the id to %q", rec.Work)
	}
	must(l.Settle(first, Result{}))(t)
	must0(t, l.Pause(second))
	l.Close()
	st := must(Read(m, ledgerName))(t)
	w, ok := st.Work(first)
	if !ok || w.Type != TypeWorkflow || len(w.Calls) != 2 || w.Label != "nightly" {
		t.Fatalf("history: %+v", w)
	}
	// A paused workflow cancels at once; only a paused one resumes.
	l, _ = openLedger(t, m, Options{})
	if w, _ := l.State().Work(second); w.State != StatePaused {
		t.Fatalf("a paused workflow after a reopen: %+v", w)
	}
	if w := must(l.Cancel(second))(t); w.State != StateSettled || w.Outcome != Cancelled {
		t.Fatalf("cancel while paused: %+v", w)
	}
	_, err := l.Continue(third, "i-x", false) // interrupted by the reopen
	wantErr(t, err, ErrRefused)
	wantErr(t, l.Pause("nobody"), ErrNotFound)

	// Suffixes stay within 64 characters, whatever the base.
	taken := map[string]bool{}
	r := seed()
	for range 2000 {
		id := WorkflowID(r, func(s string) bool { return taken[s] })
		if taken[id] || len(id) > ids.MaxLen || !wordID.MatchString(id) {
			t.Fatalf("id %q", id)
		}
		taken[id] = true
	}
	long := strings.Repeat("a", 60)
	full := map[string]bool{long: true}
	if got := ids.Unique(long, func(s string) bool { return full[s] }); len(got) > ids.MaxLen || !strings.HasSuffix(got, "-2") {
		t.Fatalf("%q", got)
	}
}

// TestRunnerPauseResume: a paused workflow's run ends with ErrPaused as
// its cause; it reads paused (not live), its waiting caller hears
// ErrPaused, its own work is cancelled and drained, and nothing settles.
// Continue runs it again under the same id, which the journal's history
// keeps, across a reopen too; a resume while its run still ends is
// refused; a Func that returns an outcome after its pause settles with
// it; only a running workflow is paused.
func TestRunnerPauseResume(t *testing.T) {
	r, log, m := newRunner(t)
	r.Ledger().opt.Rand = rand.New(rand.NewPCG(3, 4))
	saved := make(chan bool, 1)
	started := make(chan struct{})
	c := must(r.Start(Admission{Type: TypeWorkflow, Call: "i-1", Label: "nightly"}, 0, func(ctx context.Context) Result {
		close(started)
		<-ctx.Done()
		saved <- Paused(ctx)
		return Result{}
	}))(t)
	id := c.Receipt.Work
	if !wordID.MatchString(id) {
		t.Fatalf("workflow id %q", id)
	}
	<-started
	job := newGate()
	must(r.Start(Admission{ID: "shell-make", Type: TypeShell, Owner: id, Background: true}, 0, job.fn))(t)
	<-job.started
	waited := make(chan error, 1)
	go func() {
		_, err := c.Wait(context.Background())
		waited <- err
	}()
	a := must(r.Control(Request{Action: ActionPause, TaskID: id}, nil))(t)
	if a.Work == nil || a.Work.ID != id || a.Work.State != StatePaused {
		t.Fatalf("pause answered %+v", a)
	}
	if !<-saved {
		t.Fatal("the run's ctx did not say it was paused")
	}
	if err := <-waited; !errors.Is(err, ErrPaused) {
		t.Fatalf("the waiting caller got %v", err)
	}
	must0(t, r.Drain(context.Background()))
	st := r.Ledger().State()
	w, _ := st.Work(id)
	if w.State != StatePaused || w.Live() || w.Outcome != "" || len(r.Running()) != 0 {
		t.Fatalf("paused: %+v, running %v", w, r.Running())
	}
	if j, _ := st.Work("shell-make"); j.Outcome != Cancelled {
		t.Fatalf("its job: %+v", j)
	}
	if tasks, _ := st.Running(); tasks != 0 {
		t.Fatalf("a paused workflow counts as running: %d", tasks)
	}
	if got := strings.Join(log.get(), " "); got != "shell-make:cancelled "+id+":" {
		t.Fatalf("the hook heard %q", got)
	}
	_, err := r.Pause(id)
	wantErr(t, err, ErrRefused)
	_, err = r.Pause("shell-make")
	wantErr(t, err, ErrRefused)

	// Resumed under the same id; a pause after which its Func returns an
	// outcome settles with it.
	started2, release := make(chan struct{}), make(chan struct{})
	c2 := must(r.Continue(id, "i-2", false, 0, func(ctx context.Context) Result {
		close(started2)
		<-ctx.Done()
		<-release
		return Result{Outcome: Succeeded, Text: "finished anyway"}
	}))(t)
	if c2.Receipt.Work != id {
		t.Fatalf("resumed as %q", c2.Receipt.Work)
	}
	<-started2
	must(r.Pause(id))(t)
	_, err = r.Continue(id, "i-3", false, 0, func(context.Context) Result { return Result{} })
	wantErr(t, err, ErrRefused) // its run has not ended yet
	close(release)
	res, err := c2.Wait(context.Background())
	if err != nil || res.Outcome != Succeeded || res.Text != "finished anyway" {
		t.Fatalf("%+v %v", res, err)
	}
	checkFold(t, r.Ledger())
	r.Close(context.Background())
	r.Ledger().Close()

	l, _ := openLedger(t, m, Options{})
	w, _ = l.State().Work(id)
	if w.ID != id || w.Label != "nightly" || w.Outcome != Succeeded || strings.Join(w.Calls, ",") != "i-1,i-2" {
		t.Fatalf("history: %+v", w)
	}
}

// TestRunnerClosePaused: a workflow paused when its session closes stays
// paused, and the next owner resumes it under the same id.
func TestRunnerClosePaused(t *testing.T) {
	r, _, m := newRunner(t)
	g := newGate()
	g.linger = true
	c := must(r.Start(Admission{Type: TypeWorkflow, Background: true}, 0, g.fn))(t)
	<-g.started
	must(r.Pause(c.Receipt.Work))(t)
	go close(g.release)
	must0(t, r.Close(context.Background()))
	r.Ledger().Close()
	l, cut := openLedger(t, m, Options{})
	if w, _ := l.State().Work(c.Receipt.Work); w.State != StatePaused || len(cut) != 0 {
		t.Fatalf("after the close: %+v, interrupted %v", w, cut)
	}
	r2 := NewRunner(l, RunnerOptions{})
	defer r2.Close(context.Background())
	c2 := must(r2.Continue(c.Receipt.Work, "i-9", false, 0, func(context.Context) Result { return Result{} }))(t)
	if res := must(c2.Wait(context.Background()))(t); res.Outcome != Succeeded || c2.Receipt.Work != c.Receipt.Work {
		t.Fatalf("%+v %+v", res, c2.Receipt)
	}
}
