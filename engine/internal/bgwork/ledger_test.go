package bgwork

import (
	"context"
	"strings"
	"testing"

	"cairn/internal/vfs"
)

// TestReceiptThenDelivery: an admission is recorded before its receipt
// returns, never as a success; its result is owed to its owner, delivered
// once, in order, and the work is then archived and takes no live
// capacity.
func TestReceiptThenDelivery(t *testing.T) {
	ctx := context.Background()
	m := vfs.NewMem()
	l, _ := openLedger(t, m, Options{NewItem: seqItems(), MaxLive: 2})
	rec := must(l.Admit(Admission{ID: "build", Type: TypeShell, Call: "i-call1", Label: "shell-make", Background: true}))(t)
	if rec.Work != "build" || !rec.Background {
		t.Fatalf("receipt %+v", rec)
	}
	// The admission is on disk before the receipt is returned.
	st := must(Read(m, ledgerName))(t)
	w, ok := st.Work("build")
	if !ok || w.State != StateRunning || w.Outcome != "" {
		t.Fatalf("after the receipt the journal says %+v %v: running, no outcome", w, ok)
	}
	must(l.Admit(Admission{ID: "lint", Type: TypeShell, Call: "i-call2", Background: true}))(t)
	_, err := l.Admit(Admission{ID: "test", Type: TypeShell, Background: true})
	wantErr(t, err, ErrRefused) // two live: MaxLive
	must(l.Settle("lint", Result{Outcome: Failed, Text: "exit 1"}))(t)
	d := must(l.Settle("build", Result{Text: "exit 0", Output: "output-make"}))(t)
	if d == nil || d.Item != "i-000002" || d.Call != "i-call1" || d.Outcome != Succeeded || !d.Wake || d.Owner != "" {
		t.Fatalf("delivery %+v", d)
	}
	// Settled work no longer counts: a new admission fits.
	must(l.Admit(Admission{ID: "test", Type: TypeShell, Background: true}))(t)

	sink := openSink(t, m, "items.jsonl")
	if n := must(l.Deliver(ctx, "", sink))(t); n != 2 {
		t.Fatalf("delivered %d", n)
	}
	if n := must(l.Deliver(ctx, "", sink))(t); n != 0 {
		t.Fatalf("delivered %d again", n)
	}
	items := must(readSink(m, "items.jsonl"))(t)
	if len(items) != 2 || items[0].Work != "lint" || items[1].Work != "build" {
		t.Fatalf("items %+v: lint then build, once each", items)
	}
	for _, id := range []string{"lint", "build"} {
		if w, _ := l.State().Work(id); !w.Archived || w.Live() {
			t.Fatalf("%s: %+v, want archived", id, w)
		}
	}
	if w, _ := l.State().Work("test"); w.Archived || !w.Live() {
		t.Fatalf("test: %+v", w)
	}
	checkFold(t, l)
}

// TestWaitedRunOwesNothing: a run whose caller waits is settled without
// a delivery; a promoted one owes its result.
func TestWaitedRunOwesNothing(t *testing.T) {
	l, _ := openLedger(t, vfs.NewMem(), Options{})
	must(l.Admit(Admission{ID: "plan", Type: TypeTask, Call: "i-a"}))(t)
	if d := must(l.Settle("plan", Result{Text: "done"}))(t); d != nil {
		t.Fatalf("a waited run owes %+v", d)
	}
	if w, _ := l.State().Work("plan"); !w.Archived {
		t.Fatalf("%+v", w)
	}
	must(l.Admit(Admission{ID: "refactor", Type: TypeTask, Call: "i-b"}))(t)
	rec := must(l.Promote("refactor"))(t)
	if !rec.Background || rec.Call != "i-b" {
		t.Fatalf("promotion receipt %+v", rec)
	}
	_, err := l.Promote("refactor")
	wantErr(t, err, ErrRefused) // in the background already
	if d := must(l.Settle("refactor", Result{}))(t); d == nil || d.Call != "i-b" {
		t.Fatalf("a promoted run owes %+v", d)
	}
	checkFold(t, l)
}

// TestControlRules: promote only a running waited agent task; continue
// only settled work, never a shell job or an interrupted task; cancel
// shows cancelling until the work settles.
func TestControlRules(t *testing.T) {
	l, _ := openLedger(t, vfs.NewMem(), Options{})
	must(l.Admit(Admission{ID: "shell-make", Type: TypeShell, Background: true}))(t)
	must(l.Admit(Admission{ID: "review", Type: TypeTask}))(t)

	_, err := l.Promote("shell-make")
	wantErr(t, err, ErrRefused)
	_, err = l.Continue("review", "i-2", false)
	wantErr(t, err, ErrRefused) // running: not resumed
	w := must(l.Cancel("review"))(t)
	if w.State != StateCancelling {
		t.Fatalf("cancel: %+v", w)
	}
	if w, _ := l.State().Work("review"); w.State != StateCancelling {
		t.Fatalf("after cancel: %s", w.State)
	}
	_, err = l.Continue("review", "i-2", false)
	wantErr(t, err, ErrRefused) // cancelling: not resumed
	_, err = l.Promote("review")
	wantErr(t, err, ErrRefused)
	if w := must(l.Cancel("review"))(t); w.State != StateCancelling {
		t.Fatalf("a second cancel: %+v", w)
	}
	must(l.Settle("review", Result{Outcome: Cancelled}))(t)
	_, err = l.Cancel("review")
	wantErr(t, err, ErrRefused) // settled
	// A settled task continues from its history under its id.
	rec := must(l.Continue("review", "i-3", true))(t)
	if rec.Work != "review" || !rec.Background {
		t.Fatalf("continue: %+v", rec)
	}
	if w, _ := l.State().Work("review"); w.State != StateRunning || len(w.Calls) != 2 || w.Outcome != "" {
		t.Fatalf("continued: %+v", w)
	}
	must(l.Settle("shell-make", Result{}))(t)
	_, err = l.Continue("shell-make", "i-4", false)
	wantErr(t, err, ErrRefused) // shell jobs are never resumed
	_, err = l.Continue("nothing", "i-4", false)
	wantErr(t, err, ErrNotFound)
	_, err = l.Cancel("Not An Id")
	wantErr(t, err, ErrInvalid)
	_, err = l.Admit(Admission{ID: "review", Type: TypeTask})
	wantErr(t, err, ErrRefused) // an id is admitted once
	_, err = l.Admit(Admission{ID: "x", Type: "daemon"})
	wantErr(t, err, ErrInvalid)
	checkFold(t, l)
}

// TestOwnership: a child's jobs report to the child; a child that still
// runs work does not settle; a shell job owns nothing.
func TestOwnership(t *testing.T) {
	ctx := context.Background()
	m := vfs.NewMem()
	l, _ := openLedger(t, m, Options{NewItem: seqItems()})
	must(l.Admit(Admission{ID: "child", Type: TypeTask, Background: true}))(t)
	must(l.Admit(Admission{ID: "shell-cargo-test", Type: TypeShell, Owner: "child", Background: true}))(t)
	_, err := l.Admit(Admission{ID: "sub", Type: TypeShell, Owner: "shell-cargo-test"})
	wantErr(t, err, ErrRefused)
	_, err = l.Admit(Admission{ID: "sub", Type: TypeShell, Owner: "nobody"})
	wantErr(t, err, ErrNotFound)
	_, err = l.Settle("child", Result{})
	wantErr(t, err, ErrRefused) // its job still runs
	d := must(l.Settle("shell-cargo-test", Result{}))(t)
	if d.Owner != "child" {
		t.Fatalf("the job's result goes to %q, want the child", d.Owner)
	}
	if got := l.State().Owed(""); len(got) != 0 {
		t.Fatalf("the session is owed %+v", got)
	}
	childSink := openSink(t, m, "child.items.jsonl")
	if n := must(l.Deliver(ctx, "child", childSink))(t); n != 1 {
		t.Fatal(n)
	}
	must(l.Settle("child", Result{}))(t)
	sess := openSink(t, m, "items.jsonl")
	must(l.Deliver(ctx, "", sess))(t)
	if c, s := must(readSink(m, "child.items.jsonl"))(t), must(readSink(m, "items.jsonl"))(t); len(c) != 1 || c[0].Work != "shell-cargo-test" ||
		len(s) != 1 || s[0].Work != "child" {
		t.Fatalf("child got %+v, session got %+v", c, s)
	}
	checkFold(t, l)
}

// TestReportsReachTheParent: a child's report is owed to its owner as an
// item of kind report with its title; a blocked one blocks the child,
// which starts nothing more and settles blocked.
func TestReportsReachTheParent(t *testing.T) {
	l, _ := openLedger(t, vfs.NewMem(), Options{})
	must(l.Admit(Admission{ID: "child", Type: TypeTask, Background: true}))(t)
	must(l.Admit(Admission{ID: "grandchild", Type: TypeTask, Owner: "child", Background: true}))(t)
	r1 := must(CheckReport(ReportInput{Message: "\n  Found the bug:\tan off-by-one\nin parse.go"}))(t)
	d := must(l.Report("grandchild", r1))(t)
	if d.Kind != DeliverReport || d.Owner != "child" || d.Title != "Found the bug: an off-by-one" || d.Blocked {
		t.Fatalf("report %+v", d)
	}
	r2 := must(CheckReport(ReportInput{Message: "I need the API key", Title: "Blocked on credentials", Blocked: true}))(t)
	must(l.Report("child", r2))(t)
	if w, _ := l.State().Work("child"); !w.Blocked || w.Reports != 1 {
		t.Fatalf("child %+v", w)
	}
	_, err := l.Admit(Admission{ID: "more", Type: TypeShell, Owner: "child"})
	wantErr(t, err, ErrRefused) // a blocked child starts nothing
	must(l.Settle("grandchild", Result{}))(t)
	must(l.Settle("child", Result{Outcome: Succeeded}))(t)
	if w, _ := l.State().Work("child"); w.Outcome != Blocked {
		t.Fatalf("a blocked child settled %s", w.Outcome)
	}
	owed := l.State().Owed("")
	if len(owed) != 2 || owed[0].Kind != DeliverReport || !owed[0].Blocked || owed[1].Kind != DeliverResult || owed[1].Outcome != Blocked {
		t.Fatalf("the session is owed %+v: the report, then the blocked result", owed)
	}
	must(l.Admit(Admission{ID: "shell-ls", Type: TypeShell}))(t)
	_, err = l.Report("shell-ls", r1)
	wantErr(t, err, ErrRefused) // a shell job does not report
	_, err = l.Report("child", r1)
	wantErr(t, err, ErrRefused) // settled
	checkFold(t, l)
}

// TestStopSuppressesContinuation: after a stop, results are still
// delivered, but do not wake their owner; the stop survives a reopen; the
// next user turn turns continuation back on.
func TestStopSuppressesContinuation(t *testing.T) {
	ctx := context.Background()
	m := vfs.NewMem()
	l, _ := openLedger(t, m, Options{})
	must(l.Admit(Admission{ID: "a", Type: TypeTask, Background: true}))(t)
	must(l.Admit(Admission{ID: "b", Type: TypeTask, Background: true, Held: true}))(t)
	must(l.Admit(Admission{ID: "c", Type: TypeShell, Background: true}))(t)
	must(l.Settle("c", Result{}))(t)
	live := must(l.Stop())(t)
	if len(live) != 1 || live[0].ID != "a" {
		t.Fatalf("stop returned %+v: the live work that is not held", live)
	}
	must(l.Settle("a", Result{Outcome: Cancelled}))(t)
	must(l.Report("b", Report{Title: "late", Message: "late"}))(t)
	owed := l.State().Owed("")
	if len(owed) != 3 || !owed[0].Wake || owed[1].Wake || owed[2].Wake {
		t.Fatalf("owed %+v: c wakes, the late a and report do not", owed)
	}
	l.Close()

	// A resumed session knows it is stopped.
	l, _ = openLedger(t, m, Options{})
	if !l.Stopped() {
		t.Fatal("the stop did not survive a reopen")
	}
	sink := openSink(t, m, "items.jsonl")
	must(l.Deliver(ctx, "", sink))(t)
	items := must(readSink(m, "items.jsonl"))(t)
	if len(items) != 3 || !items[0].Wake || items[1].Wake || items[2].Wake {
		t.Fatalf("items %+v: kept, only the first wakes", items)
	}
	must0(t, l.UserTurn())
	if l.Stopped() {
		t.Fatal("a user turn did not turn continuation back on")
	}
	must(l.Settle("b", Result{}))(t)
	if owed := l.State().Owed(""); len(owed) != 1 || !owed[0].Wake {
		t.Fatalf("after the user turn %+v", owed)
	}
	checkFold(t, l)
	if _, err := m.Stat(ledgerName); err != nil {
		t.Fatal(err)
	}
}

// must0 fails the test on err.
func must0(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestOpenInterrupts: a new owner settles the work a gone process was
// running as interrupted, children before their parents, owes those
// results to owners that survive, leaves held work alone, and never
// resumes it.
func TestOpenInterrupts(t *testing.T) {
	m := vfs.NewMem()
	l, _ := openLedger(t, m, Options{})
	must(l.Admit(Admission{ID: "parent", Type: TypeTask, Background: true}))(t)
	must(l.Admit(Admission{ID: "shell-make", Type: TypeShell, Owner: "parent", Background: true}))(t)
	must(l.Admit(Admission{ID: "waited", Type: TypeTask}))(t)
	must(l.Admit(Admission{ID: "held", Type: TypeTask, Held: true}))(t)
	// The process dies: no Close.
	l2, cut := openLedger(t, m, Options{})
	var got []string
	for _, w := range cut {
		got = append(got, w.ID)
	}
	if strings.Join(got, " ") != "waited shell-make parent" {
		t.Fatalf("interrupted %v", got)
	}
	st := l2.State()
	for _, id := range []string{"parent", "shell-make", "waited"} {
		if w, _ := st.Work(id); w.State != StateSettled || w.Outcome != Interrupted {
			t.Fatalf("%s: %+v", id, w)
		}
	}
	if w, _ := st.Work("held"); w.State != StateRunning {
		t.Fatalf("held: %+v", w)
	}
	var owed []string
	for _, d := range st.Owed("") {
		owed = append(owed, d.Work)
	}
	// The job's result would go to its owner, interrupted with it: none.
	if strings.Join(owed, " ") != "waited parent" || len(st.Owed("parent")) != 0 {
		t.Fatalf("owed to the session %v, to parent %d", owed, len(st.Owed("parent")))
	}
	_, err := l2.Continue("parent", "i-x", false)
	wantErr(t, err, ErrRefused) // never resumed
	checkFold(t, l2)
	// Nothing to recover: Open writes nothing.
	before := must(vfs.ReadFile(m, ledgerName))(t)
	l2.Close()
	l3, cut := openLedger(t, m, Options{})
	if len(cut) != 0 || string(must(vfs.ReadFile(m, ledgerName))(t)) != string(before) {
		t.Fatalf("a clean reopen interrupted %v or wrote", cut)
	}
	l3.Close()
}

// TestOpenWritesNothingWhenEmpty: a session that never had background
// work gets no journal from opening its ledger.
func TestOpenWritesNothingWhenEmpty(t *testing.T) {
	m := vfs.NewMem()
	l, _ := openLedger(t, m, Options{})
	must0(t, l.Close())
	if _, err := m.Stat(ledgerName); !vfs.IsNotExist(err) {
		t.Fatalf("stat = %v, want no journal", err)
	}
}

// TestSkippedLines: lines that make no sense where they stand are skipped
// and counted, never taken.
func TestSkippedLines(t *testing.T) {
	m := vfs.NewMem()
	m.MkdirAll("tasks/s1", 0o700)
	lines := strings.Join([]string{
		`{"v":1,"kind":"admit","work":"a","type":"task","at":"2026-11-29T09:00:00.000Z"}`,
		`{"v":1,"kind":"admit","work":"a","type":"task","at":"2026-11-29T09:00:00.000Z"}`,      // twice
		`{"v":1,"kind":"admit","work":"../x","type":"task","at":"2026-11-29T09:00:00.000Z"}`,   // not an id
		`{"v":1,"kind":"admit","work":"b","type":"daemon","at":"2026-11-29T09:00:00.000Z"}`,    // no such type
		`{"v":1,"kind":"settle","work":"a","outcome":"great","at":"2026-11-29T09:00:00.000Z"}`, // no such outcome
		`{"v":1,"kind":"delivered","item":"i-none","at":"2026-11-29T09:00:00.000Z"}`,           // nothing owed
		`{"v":1,"kind":"promote","work":"nobody","at":"2026-11-29T09:00:00.000Z"}`,             // no such work
		`{"v":2,"kind":"stop","at":"2026-11-29T09:00:00.000Z"}`,                                // another version: not ours, not counted
		`{"v":1,"kind":"settle","work":"a","outcome":"failed","item":"i-1","at":"2026-11-29T09:00:00.000Z"}`,
		`{"v":1,"kind":"settle","work":"a","outcome":"failed","item":"i-2","at":"2026-11-29T09:00:00.000Z"}`, // settled already
		`{"v":1,"kind":"continue","work":"a","at":"2026-11-29T09:00:00.000Z"}`,
		`{"v":1,"kind":"continue","work":"a","at":"2026-11-29T09:00:00.000Z"}`, // running
		"",
	}, "\n")
	must0(t, vfs.WriteFileAtomic(m, ledgerName, []byte(lines)))
	st := must(Read(m, ledgerName))(t)
	if st.Skipped != 8 || st.Stopped() {
		t.Fatalf("skipped %d, stopped %v", st.Skipped, st.Stopped())
	}
	w, _ := st.Work("a")
	if len(st.Works()) != 1 || w.State != StateRunning || len(w.Calls) != 2 || len(st.Owed("")) != 1 {
		t.Fatalf("%+v owed %d", st.Works(), len(st.Owed("")))
	}
}

// TestOwnerGone: a reader that knows the owner is gone sees what the next
// Open will write, without writing it.
func TestOwnerGone(t *testing.T) {
	m := vfs.NewMem()
	l, _ := openLedger(t, m, Options{})
	must(l.Admit(Admission{ID: "a", Type: TypeTask, Background: true}))(t)
	must(l.Admit(Admission{ID: "h", Type: TypeTask, Held: true}))(t)
	before := must(vfs.ReadFile(m, ledgerName))(t)
	st := must(Read(m, ledgerName))(t)
	st.OwnerGone()
	if w, _ := st.Work("a"); w.State != StateSettled || w.Outcome != Interrupted {
		t.Fatalf("%+v", w)
	}
	if w, _ := st.Work("h"); w.State != StateRunning {
		t.Fatalf("held: %+v", w)
	}
	if string(must(vfs.ReadFile(m, ledgerName))(t)) != string(before) {
		t.Fatal("a reader wrote")
	}
	_, cut := openLedger(t, m, Options{})
	if len(cut) != 1 || cut[0].ID != "a" {
		t.Fatalf("%+v", cut)
	}
}
