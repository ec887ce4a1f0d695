package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"cairn/engine/internal/bgwork"
	"cairn/engine/internal/changes"
	"cairn/engine/internal/tasks"
	"cairn/journal"
)

// settledCh is a channel told each time the session's background work
// settles or a message arrives.
func settledCh(s *Session) chan struct{} {
	ch := make(chan struct{}, 16)
	s.OnBackground(func() {
		select {
		case ch <- struct{}{}:
		default:
		}
	})
	return ch
}

// deliverUntil delivers until n items came, waiting on ch between tries.
func deliverUntil(t *testing.T, s *Session, ch chan struct{}, n int) []Item {
	t.Helper()
	var got []Item
	for len(got) < n {
		its, err := s.Deliver(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, its...)
		if len(got) < n {
			<-ch
		}
	}
	return got
}

// taskItems is the items of s that name a piece of background work.
func taskItems(s *Session) []Item {
	var out []Item
	for _, it := range s.AllItems() {
		if it.Task != "" && it.Type != ToolCall {
			out = append(out, it)
		}
	}
	return out
}

// TestSessionShellThreshold: under shell auto with the threshold at 120,
// a call asking for 120 seconds waits (no ledger entry), one asking for
// 121 is answered with a receipt at once although it ends quickly; its
// result is delivered as one tool_result naming the job, once, also after
// the session is opened again.
func TestSessionShellThreshold(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	s := newSession(t, ws)
	ch := settledCh(s)
	waited := must(s.Shell(ctx, "echo waited", ShellOptions{TimeoutSecs: 120}))(t)
	if waited.Receipt != nil || waited.Exec == nil || waited.Exec.ExitCode != 0 {
		t.Fatalf("120: %+v", waited)
	}
	if l := must(ws.TaskControl(ctx, s.ID(), TaskControlRequest{Action: "list"}))(t); len(l.Page.Works) != 0 {
		t.Fatalf("a waited call is in the ledger: %+v", l.Page.Works)
	}
	got := must(s.Shell(ctx, "echo quick", ShellOptions{TimeoutSecs: 121}))(t)
	if got.Receipt == nil || got.Exec != nil || got.Receipt.Work != "shell-echo" || !got.Receipt.Background {
		t.Fatalf("121: %+v", got)
	}
	its := deliverUntil(t, s, ch, 1)
	if len(its) != 1 || its[0].Type != ToolResult || its[0].Task != "shell-echo" || its[0].Text != "shell-echo succeeded: exit 0" || len(its[0].Outputs) != 1 {
		t.Fatalf("%+v", its)
	}
	if more := must(s.Deliver(ctx))(t); len(more) != 0 {
		t.Fatalf("delivered again: %+v", more)
	}
	st := must(ws.TaskControl(ctx, s.ID(), TaskControlRequest{Action: "status", TaskID: "shell-echo"}))(t)
	if st.Status.Outcome != "succeeded" || !st.Status.Archived || len(st.Status.Deliveries) != 1 || !st.Status.Deliveries[0].Delivered {
		t.Fatalf("%+v", st.Status)
	}
	id := s.ID()
	must(0, s.Close())(t)
	s = must(ws.Open(ctx, id, SessionOptions{}))(t)
	defer s.Close()
	if more := must(s.Deliver(ctx))(t); len(more) != 0 {
		t.Fatalf("delivered again after an open: %+v", more)
	}
	if n := len(taskItems(s)); n != 1 {
		t.Fatalf("%d result items, want 1", n)
	}
	// The shell history has the background line too.
	ents := must(ws.ShellHistory(ctx, id))(t)
	if len(ents) != 2 || ents[1].Cmd != "echo quick" || ents[1].Exit != 0 {
		t.Fatalf("%+v", ents)
	}
}

// TestSessionShellDeadline: a waited call is killed at its timeout and
// says so; async answers every call with a receipt, and one-shot use
// refuses async (nothing runs).
func TestSessionShellDeadline(t *testing.T) {
	ctx := context.Background()
	st, ws := testStore(t)
	s := newSession(t, ws)
	a := must(s.Shell(ctx, "sleep 30; touch late", ShellOptions{TimeoutSecs: 1}))(t)
	if !a.TimedOut || a.Exec == nil || a.Exec.ExitCode == 0 {
		t.Fatalf("%+v", a)
	}
	if _, err := os.Stat(filepath.Join(ws.Path(), "late")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the line ran past its deadline: %v", err)
	}
	must(0, os.WriteFile(filepath.Join(st.home, "config.json"), []byte(`{"agent":{"shell_execution":"async"}}`), 0o600))(t)
	s2 := newSession(t, ws)
	if _, err := s2.Shell(ctx, "touch one-shot", ShellOptions{Use: ExecOneShot}); !errors.Is(err, ErrRefused) {
		t.Fatalf("one-shot async: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws.Path(), "one-shot")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refused call ran: %v", err)
	}
	r := must(s2.Shell(ctx, "true", ShellOptions{TimeoutSecs: 5}))(t)
	if r.Receipt == nil {
		t.Fatalf("async 5 s: %+v", r)
	}
}

// TestSessionCloseDrains: closing a session cancels its running jobs and
// waits for them to settle before it saves: the ledger says cancelled and
// the conversation holds the cancelled result.
func TestSessionCloseDrains(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	s := newSession(t, ws)
	rc := must(s.Shell(ctx, "sleep 300", ShellOptions{TimeoutSecs: 600}))(t).Receipt
	if tasks, shells := s.Running(); tasks != 0 || shells != 1 {
		t.Fatalf("running %d %d", tasks, shells)
	}
	id := s.ID()
	must(0, s.Close())(t)
	st := must(ws.TaskControl(ctx, id, TaskControlRequest{Action: "status", TaskID: rc.Work}))(t)
	if st.Status.Outcome != "cancelled" || !st.Status.Archived {
		t.Fatalf("%+v", st.Status)
	}
	s = must(ws.Open(ctx, id, SessionOptions{}))(t)
	defer s.Close()
	its := taskItems(s)
	if len(its) != 1 || !strings.HasPrefix(its[0].Text, rc.Work+" cancelled") {
		t.Fatalf("%+v", its)
	}
}

// TestSessionTaskControl: cancel shows cancelling until the job settles,
// then its cancelled result is delivered; status of unknown work is not
// found; background needs task auto.
func TestSessionTaskControl(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	s := newSession(t, ws)
	ch := settledCh(s)
	rc := must(s.Shell(ctx, "sleep 300", ShellOptions{TimeoutSecs: 600}))(t).Receipt
	// Wait until its shell runs: the shell history says running.
	for {
		hist := must(ws.ShellHistory(ctx, s.ID()))(t)
		if len(hist) == 1 && hist[0].Status == ShellRunning {
			break
		}
		time.Sleep(time.Millisecond) // poll the file, not spin on it
	}
	a := must(s.TaskControl(ctx, TaskControlRequest{Action: "cancel", TaskID: rc.Work}))(t)
	if a.Work == nil || a.Work.State != "cancelling" {
		t.Fatalf("%+v", a)
	}
	its := deliverUntil(t, s, ch, 1)
	if !strings.HasPrefix(its[0].Text, rc.Work+" cancelled") {
		t.Fatalf("%+v", its)
	}
	// The shell history says cancelled too, not the exit of a killed line.
	hist := must(ws.ShellHistory(ctx, s.ID()))(t)
	if len(hist) != 1 || hist[0].Status != ShellCancelled || hist[0].Cmd != "sleep 300" {
		t.Fatalf("shell history %+v", hist)
	}
	if _, err := s.TaskControl(ctx, TaskControlRequest{Action: "status", TaskID: "nothing"}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("%v", err)
	}
	if _, err := s.TaskControl(ctx, TaskControlRequest{Action: "background", TaskID: rc.Work}); !errors.Is(err, ErrRefused) {
		t.Fatalf("promote a shell job: %v", err)
	}
}

// TestSessionStopAll: a stop is recorded before the work is cancelled; the
// result that comes after it is kept (delivered, not waking); a reopened
// session knows it was stopped, and the next user turn re-enables it.
func TestSessionStopAll(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	s := newSession(t, ws)
	ch := settledCh(s)
	rc := must(s.Shell(ctx, "sleep 300", ShellOptions{TimeoutSecs: 600}))(t).Receipt
	stopped := must(s.StopAll(ctx))(t)
	if len(stopped) != 1 || stopped[0].ID != rc.Work {
		t.Fatalf("%+v", stopped)
	}
	deliverUntil(t, s, ch, 1)
	st := must(ws.TaskControl(ctx, s.ID(), TaskControlRequest{Action: "status", TaskID: rc.Work}))(t)
	if d := st.Status.Deliveries; len(d) != 1 || d[0].Wake || !d[0].Delivered {
		t.Fatalf("a result after a stop: %+v", d)
	}
	id := s.ID()
	must(0, s.Close())(t)
	s = must(ws.Open(ctx, id, SessionOptions{}))(t)
	if !must(s.Stopped())(t) {
		t.Fatal("a reopened session forgot the stop")
	}
	must(s.Append(ctx, Item{Type: User, Text: "go on"}))(t)
	if must(s.Stopped())(t) {
		t.Fatal("a user turn did not re-enable continuation")
	}
	must(0, s.Close())(t)
	s = must(ws.Open(ctx, id, SessionOptions{}))(t)
	defer s.Close()
	if must(s.Stopped())(t) {
		t.Fatal("the user turn's resume was not recorded")
	}
}

// TestSessionReport: a task's report_to_parent is an item of type report
// in the parent's conversation; a blocked one ends the task, blocked, and
// a task that is not running reports nothing.
func TestSessionReport(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	s := newSession(t, ws)
	task, _ := must2(s.StartTask(ctx, TaskStart{Description: "find the config", Held: true}))(t)
	it := must(s.Report(ctx, task.ID(), ReportInput{Message: "\nfound it in etc\nand more"}))(t)
	if it.Type != Report || it.Title != "found it in etc" || it.Blocked || it.Task != task.ID() {
		t.Fatalf("%+v", it)
	}
	it = must(s.Report(ctx, task.ID(), ReportInput{Message: "need the key", Title: "Blocked", Blocked: true}))(t)
	if it.Type != Report || it.Title != "Blocked" || !it.Blocked {
		t.Fatalf("%+v", it)
	}
	recs := must(ws.Tasks(ctx, s.ID()))(t)
	if len(recs) != 1 || recs[0].State != TaskBlocked {
		t.Fatalf("%+v", recs)
	}
	if _, err := s.Report(ctx, task.ID(), ReportInput{Message: "late"}); !errors.Is(err, ErrRefused) {
		t.Fatalf("a report of a blocked task: %v", err)
	}
	if _, err := s.Report(ctx, task.ID(), ReportInput{}); !errors.Is(err, ErrBadInput) {
		t.Fatalf("an empty report: %v", err)
	}
	// Read back from disk.
	id := s.ID()
	must(0, s.Close())(t)
	s = must(ws.Open(ctx, id, SessionOptions{}))(t)
	defer s.Close()
	var reps []Item
	for _, it := range s.Transcript() {
		if it.Type == Report {
			reps = append(reps, it)
		}
	}
	if len(reps) != 2 || !reps[1].Blocked || reps[0].Title != "found it in etc" {
		t.Fatalf("%+v", reps)
	}
}

// TestDeliverAfterKillBetweenItemAndLine: the owner was killed after a
// delivered item reached its conversation but before the ledger's
// delivered line: the next owner writes the line and does not put the
// item again.
func TestDeliverAfterKillBetweenItemAndLine(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	s := newSession(t, ws)
	l, _, err := bgwork.Open(ws.s.fsys, workLedgerName(ws.dir, s.ID()), bgwork.Options{NewItem: newItemID})
	if err != nil {
		t.Fatal(err)
	}
	var owed []*bgwork.Delivery
	for _, id := range []string{"job-a", "job-b", "job-c"} {
		must(l.Admit(bgwork.Admission{ID: id, Type: bgwork.TypeShell, Background: true}))(t)
		owed = append(owed, must(l.Settle(id, bgwork.Result{Text: "exit 0"}))(t))
	}
	l.Close()
	// What the killed owner had done: the first two items put and synced
	// (as Deliver puts them), no delivered line.
	k := &itemSink{s: s}
	for _, d := range owed[:2] {
		must(0, ledgerSink{k}.Put(ctx, *d))(t)
	}
	must(0, s.Commit(ctx))(t)
	id := s.ID()
	must(0, s.Close())(t)

	s = must(ws.Open(ctx, id, SessionOptions{}))(t)
	defer s.Close()
	its := must(s.Deliver(ctx))(t)
	if len(its) != 1 || its[0].ID != owed[2].Item {
		t.Fatalf("put %+v, want only %s", its, owed[2].Item)
	}
	got := taskItems(s)
	if len(got) != 3 || got[0].Task != "job-a" || got[1].Task != "job-b" || got[2].Task != "job-c" {
		t.Fatalf("%+v", got)
	}
	for _, w := range []string{"job-a", "job-b", "job-c"} {
		st := must(ws.TaskControl(ctx, id, TaskControlRequest{Action: "status", TaskID: w}))(t)
		if !st.Status.Deliveries[0].Delivered {
			t.Errorf("%s: not marked delivered", w)
		}
	}
}

// TestSessionMessages: a message sent to a live session is delivered as a
// message item, once, with its sender.
func TestSessionMessages(t *testing.T) {
	ctx := context.Background()
	st, ws := testStore(t)
	must(0, os.WriteFile(filepath.Join(st.home, "config.json"), []byte(`{"experimental":{"cross_session_messaging":true}}`), 0o600))(t)
	a, b := newSession(t, ws), newSession(t, ws)
	must(ws.SendMessage(ctx, b.ID(), "one", MessageOptions{From: a.ID()}))(t)
	must(ws.SendMessage(ctx, b.ID(), "two", MessageOptions{}))(t)
	its := must(b.Deliver(ctx))(t)
	if len(its) != 2 || its[0].Type != Message || its[0].Text != "one" || its[0].From != a.ID() || its[1].Text != "two" || its[1].From != "" {
		t.Fatalf("%+v", its)
	}
	if more := must(b.Deliver(ctx))(t); len(more) != 0 {
		t.Fatalf("%+v", more)
	}
}

// TestSessionStartWork: a workflow run gets a word-list id, kept when it
// is listed and in its status; a task's id is its label's slug; task auto
// waits unless background, and task sync refuses background.
func TestSessionStartWork(t *testing.T) {
	ctx := context.Background()
	st, ws := testStore(t)
	s := newSession(t, ws)
	ch := settledCh(s)
	release := make(chan struct{})
	fn := func(ctx context.Context) WorkResult {
		select {
		case <-release:
			return WorkResult{Text: "done"}
		case <-ctx.Done():
			return WorkResult{}
		}
	}
	wf := must(s.StartWork(ctx, WorkStart{Type: "workflow", Label: "nightly build", Background: true}, fn))(t)
	if !wordID.MatchString(wf.Receipt.Work) || !wf.Receipt.Background {
		t.Fatalf("workflow receipt %+v", wf.Receipt)
	}
	wf2 := must(s.StartWork(ctx, WorkStart{Type: "workflow", Label: "nightly build", Background: true}, fn))(t)
	if wf2.Receipt.Work == wf.Receipt.Work || !wordID.MatchString(wf2.Receipt.Work) {
		t.Fatalf("two runs, ids %q %q", wf.Receipt.Work, wf2.Receipt.Work)
	}
	task := must(s.StartWork(ctx, WorkStart{Type: "task", Label: "Implement active footer chips"}, fn))(t)
	if task.Receipt.Work != "implement-active-footer-chips" || task.Receipt.Background {
		t.Fatalf("task receipt %+v", task.Receipt)
	}
	if tasks, shells := s.Running(); tasks != 3 || shells != 0 {
		t.Fatalf("running %d %d", tasks, shells)
	}
	// Promoted (task auto): the waiting caller gets the receipt.
	must(s.TaskControl(ctx, TaskControlRequest{Action: "background", TaskID: task.Receipt.Work}))(t)
	if _, err := task.Wait(ctx); err == nil {
		t.Fatal("a promoted call's Wait returned a result")
	}
	close(release)
	if its := deliverUntil(t, s, ch, 3); its[2].Text == "" {
		t.Fatalf("%+v", its)
	}
	must(0, s.Close())(t)
	l := must(ws.TaskControl(ctx, s.ID(), TaskControlRequest{Action: "list"}))(t)
	if len(l.Page.Works) != 3 || l.Page.Works[1].ID != wf2.Receipt.Work || l.Page.Works[2].ID != wf.Receipt.Work || l.Page.Works[2].Outcome != "succeeded" {
		t.Fatalf("%+v", l.Page.Works)
	}
	must(0, os.WriteFile(filepath.Join(st.home, "config.json"), []byte(`{"agent":{"task_execution":"sync"}}`), 0o600))(t)
	s2 := newSession(t, ws)
	if _, err := s2.StartWork(ctx, WorkStart{Type: "task", Label: "x", Background: true}, fn); !errors.Is(err, ErrRefused) {
		t.Fatalf("background under task sync: %v", err)
	}
}

var wordID = regexp.MustCompile(`^[a-z]+-[a-z]+-[a-z]+(-[0-9]+)?$`)

// TestTaskControlPagesThousand: list pages 1,000 archived jobs newest
// first, 20 a page, each next passed back as given: every id once, in
// order, and no next on the last page.
func TestTaskControlPagesThousand(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	s := newSession(t, ws)
	l, _, err := bgwork.Open(ws.s.fsys, workLedgerName(ws.dir, s.ID()), bgwork.Options{NewItem: newItemID})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 1000; i++ {
		id := fmt.Sprintf("job-%d", i)
		must(l.Admit(bgwork.Admission{ID: id, Type: bgwork.TypeShell, Background: true}))(t)
		must(l.Settle(id, bgwork.Result{Text: "exit 0"}))(t)
	}
	must(l.Deliver(ctx, "", ledgerSink{&itemSink{s: s}}))(t)
	l.Close()
	seen, pages, cursor := 0, 0, ""
	for {
		a := must(ws.TaskControl(ctx, s.ID(), TaskControlRequest{Action: "list", Cursor: cursor}))(t)
		pages++
		for _, w := range a.Page.Works {
			if want := fmt.Sprintf("job-%d", 1000-seen); w.ID != want || !w.Archived {
				t.Fatalf("entry %d is %s (archived %v), want %s", seen, w.ID, w.Archived, want)
			}
			seen++
		}
		if a.Page.Next == "" {
			break
		}
		if len(a.Page.Works) != 20 {
			t.Fatalf("page %d holds %d", pages, len(a.Page.Works))
		}
		cursor = a.Page.Next
	}
	if seen != 1000 || pages != 50 {
		t.Fatalf("%d entries on %d pages", seen, pages)
	}
}

// TestTaskControlSeesRecordedTasks: a task a "task" tool_call starts (the
// plumbing's, held) is in the ledger: task_control lists it and shows its
// status, from the owner and from a reader; cancel ends it (its record
// cancelled too); a continue runs it again; a tool_result answering its
// call settles it, with nothing delivered; stop-all ends a held task; and
// a task the ledger missed (written to the records only, as an import or
// an older cairn does) is listed all the same.
func TestTaskControlSeesRecordedTasks(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	s := newSession(t, ws)
	id := s.ID()
	task, _ := must2(s.StartTask(ctx, TaskStart{Description: "Look around", Held: true}))(t)
	must(0, s.Close())(t)

	// A reader, no owner: listed, running, held.
	l := must(ws.TaskControl(ctx, id, TaskControlRequest{Action: "list"}))(t)
	if len(l.Page.Works) != 1 || l.Page.Works[0].ID != task.ID() || l.Page.Works[0].Type != "task" ||
		l.Page.Works[0].State != "running" || !l.Page.Works[0].Held {
		t.Fatalf("list %+v", l.Page.Works)
	}
	// Cancel, as a later process (the plumbing) does it.
	s = must(ws.Open(ctx, id, SessionOptions{}))(t)
	a := must(s.TaskControl(ctx, TaskControlRequest{Action: "cancel", TaskID: task.ID()}))(t)
	if a.Work == nil || a.Work.State != "settled" || a.Work.Outcome != "cancelled" {
		t.Fatalf("cancel %+v", a.Work)
	}
	recs := must(ws.Tasks(ctx, id))(t)
	if len(recs) != 1 || recs[0].State != TaskCancelled {
		t.Fatalf("records %+v", recs)
	}
	// Continued: running again under the same id; its result answers it.
	again, call := must2(s.StartTask(ctx, TaskStart{Description: "go on", Continue: task.ID(), Held: true}))(t)
	st := must(s.TaskControl(ctx, TaskControlRequest{Action: "status", TaskID: again.ID()}))(t)
	if st.Status.State != "running" || len(st.Status.Calls) != 2 || st.Status.Calls[1] != call.ID {
		t.Fatalf("continued %+v", st.Status)
	}
	must(s.Append(ctx, Item{Type: ToolResult, Call: call.ID, Text: "done"}))(t)
	st = must(s.TaskControl(ctx, TaskControlRequest{Action: "status", TaskID: again.ID()}))(t)
	if st.Status.Outcome != "succeeded" || len(st.Status.Deliveries) != 0 || !st.Status.Archived {
		t.Fatalf("answered %+v", st.Status)
	}
	// Stop all ends a held task too.
	held, _ := must2(s.StartTask(ctx, TaskStart{Description: "another", Held: true}))(t)
	stopped := must(s.StopAll(ctx))(t)
	if len(stopped) != 1 || stopped[0].ID != held.ID() {
		t.Fatalf("stopped %+v", stopped)
	}
	if w, _ := s.work.runner.Ledger().State().Work(held.ID()); w.Outcome != "cancelled" {
		t.Fatalf("after stop-all %+v", w)
	}
	must(0, s.Close())(t)

	// A record the ledger never heard of: listed by a reader, and written
	// to the ledger when its owner opens it.
	w, _ := must2(journal.OpenWriter(ws.s.fsys, taskRecordsName(ws.dir, id), journal.Options{}))(t)
	must(0, w.Append(&tasks.Line{V: 1, Kind: "start", Task: "imported", Type: taskTypeAgent, Label: "imported", Call: "i-0000000000000001", Held: true}))(t)
	must(0, w.Append(&tasks.Line{V: 1, Kind: "end", Task: "imported", State: TaskSettled}))(t)
	must(0, w.Close())(t)
	if st := must(ws.TaskControl(ctx, id, TaskControlRequest{Action: "status", TaskID: "imported"}))(t); st.Status.Outcome != "succeeded" {
		t.Fatalf("reader %+v", st.Status)
	}
	s = must(ws.Open(ctx, id, SessionOptions{}))(t)
	defer s.Close()
	must(s.TaskControl(ctx, TaskControlRequest{Action: "list"}))(t)
	led := must(bgwork.Read(ws.s.fsys, workLedgerName(ws.dir, id)))(t)
	if w, ok := led.Work("imported"); !ok || w.Outcome != "succeeded" {
		t.Fatalf("owner's ledger %+v %v", w, ok)
	}
}

// TestBackgroundLineRecorded: a background shell line that changes files
// gets a change record as a foreground line does: its record names its
// call and the files, its delivered result names the record, a
// foreground line run meanwhile over the same files joins its unit (an
// overlap line after both), and a file revert to the prompt before puts
// back what both changed. A line the store is told not to record (the
// user's own) gets none.
func TestBackgroundLineRecorded(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.ws.Create(SessionOptions{Notice: func(n string) { t.Log("notice: ", n) }})
	defer s.Close()
	ch := settledCh(s)
	e.put("a.txt", "a0")
	p := must(s.Append(e.ctx, Item{Type: User, Text: "change things"}))(t)
	call := must(s.Append(e.ctx, Item{Type: ToolCall, Tool: "exec", Text: "background"}))(t)
	// It goes on once the line run meanwhile has ended (a file outside the
	// workspace says so): ended while that line ran, its result would come
	// first, its record after (TestBackgroundLineEndsWhileItsSessionRunsACall).
	goon := filepath.Join(t.TempDir(), "go-on")
	bg := "while [ ! -e " + goon + " ]; do sleep 0.01; done; echo bg > a.txt; echo new > b.txt"
	rc := must(s.Shell(e.ctx, bg, ShellOptions{ExecOptions: ExecOptions{Call: call.ID}, TimeoutSecs: 600}))(t).Receipt
	if rc == nil {
		t.Fatal("no receipt")
	}
	// Wait until its shell runs (its record was begun before it).
	for {
		hist := must(e.ws.ShellHistory(e.ctx, s.ID()))(t)
		if len(hist) == 1 && hist[0].Status == ShellRunning {
			break
		}
		time.Sleep(time.Millisecond)
	}
	e.exec(s, "echo fg > f.txt; echo a-fg > a.txt; touch go")
	if err := os.WriteFile(goon, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	its := deliverUntil(t, s, ch, 1)
	if !strings.HasPrefix(its[0].Text, rc.Work+" succeeded: exit 0, record ") || its[0].Call != call.ID {
		t.Fatalf("%+v", its[0])
	}
	// Its call and record lines, and the unit's overlap line after both.
	var kinds []string
	journal.Read(e.store.fsys, changesName(e.ws.dir, s.ID()), func(b []byte) error {
		var l recSeen
		if json.Unmarshal(b, &l) == nil && (changes.RecordKind(l.Kind) || l.Kind == changes.KindOverlap) {
			kinds = append(kinds, l.Kind)
			if l.Kind == changes.KindRecord && l.Scope == scopeWorkspace && len(l.Files) != 4 {
				t.Errorf("the background line's record holds %d files, want 4 (a.txt, b.txt and the two of the line run meanwhile)", len(l.Files))
			}
		}
		return nil
	})
	if got := strings.Join(kinds, ","); got != "call,record,call,record,overlap" {
		t.Fatalf("lines %s, want the foreground line's, the background line's, and their unit's", got)
	}
	must(s.Revert(e.ctx, p.ID, RevertFiles))(t)
	e.want("a.txt", "a0")
	e.want("b.txt", "<absent>")
	e.want("f.txt", "<absent>")
	e.want("go", "<absent>")

	// The user's own line: run, no record.
	n := len(e.recLines(s))
	must(s.Shell(e.ctx, "echo mine > m.txt", ShellOptions{ExecOptions: ExecOptions{Own: true}, TimeoutSecs: 600}))(t)
	deliverUntil(t, s, ch, 1)
	e.want("m.txt", "mine\n")
	if len(e.recLines(s)) != n {
		t.Fatalf("the user's own background line was recorded: %s", e.recKinds(s))
	}
}

// TestBackgroundLineCancelledBeforeStart: a background line cancelled
// while it waits to start (a file revert of another session holds the
// workspace's calls) never runs, settles cancelled, and is in the shell
// history all the same, cancelled.
func TestBackgroundLineCancelledBeforeStart(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	s, other := newSession(t, ws), newSession(t, ws)
	ch := settledCh(s)
	alone := must(other.lockCallsAlone("revert"))(t)
	// Its receipt waits for it to begin, after the revert: it is
	// cancelled meanwhile, as its admission lists it.
	got := make(chan ShellAnswer, 1)
	go func() { got <- must(s.Shell(ctx, "touch ran.txt", ShellOptions{TimeoutSecs: 600}))(t) }()
	var live []BackgroundWork
	for len(live) == 0 {
		live = s.RunningWork()
		time.Sleep(time.Millisecond)
	}
	must(s.TaskControl(ctx, TaskControlRequest{Action: "cancel", TaskID: live[0].ID}))(t)
	rc := (<-got).Receipt
	its := deliverUntil(t, s, ch, 1)
	alone.Release()
	if its[0].Text != rc.Work+" cancelled: not run: cancelled before it started" {
		t.Fatalf("%+v", its[0])
	}
	if _, err := os.Stat(filepath.Join(ws.Path(), "ran.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a cancelled line ran: %v", err)
	}
	hist := must(ws.ShellHistory(ctx, s.ID()))(t)
	if len(hist) != 1 || hist[0].Status != ShellCancelled || hist[0].Cmd != "touch ran.txt" {
		t.Fatalf("shell history %+v", hist)
	}
}

// TestBackgroundLineCancelledWhileItsSessionRunsACall: a background line
// that waits to begin behind a call of its own session (the undo stack's
// lock) and is cancelled meanwhile settles cancelled at once, without
// running, even though that call runs on: the call may be waiting for the
// job to end (a shell line polling for its cancelled result), which would
// wait forever, or until the line's timeout, had the job kept waiting.
func TestBackgroundLineCancelledWhileItsSessionRunsACall(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	s := newSession(t, ws)
	ch := settledCh(s)
	// A call of s runs: it holds the undo stack's lock, as a foreground
	// shell line does while it runs.
	unlock := holdUndoStack(s)
	defer unlock()
	rc := must(s.Shell(ctx, "touch ran.txt", ShellOptions{TimeoutSecs: 600}))(t).Receipt
	must(s.TaskControl(ctx, TaskControlRequest{Action: "cancel", TaskID: rc.Work}))(t)
	got := make(chan []Item, 1)
	go func() { got <- deliverUntil(t, s, ch, 1) }()
	var its []Item
	select {
	case its = <-got:
	case <-time.After(time.Minute):
		unlock() // let the job go on, so the test ends
		<-got
		t.Fatal("the cancelled background line did not settle while a call of its session ran")
	}
	unlock()
	if its[0].Text != rc.Work+" cancelled: not run: cancelled before it started" {
		t.Fatalf("%+v", its[0])
	}
	if _, err := os.Stat(filepath.Join(ws.Path(), "ran.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a cancelled line ran: %v", err)
	}
}
