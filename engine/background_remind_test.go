package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// reminders is the reminder items of s, oldest first.
func reminders(s *Session) []Item {
	var out []Item
	for _, it := range s.AllItems() {
		if it.Type == Reminder {
			out = append(out, it)
		}
	}
	return out
}

// TestSessionReminders: with agent.background_reminder_turns 2, a turn
// that ends while a background line runs gets a reminder item naming it
// once two turns have ended since the line began, and every two turns
// after; a compaction gets one whenever work runs; without the key only
// the compaction does. A session nobody watches gets it at once; one a
// runtime watches hears of it and delivers it at its safe boundary. No
// reminder once the work settled.
func TestSessionReminders(t *testing.T) {
	ctx := context.Background()
	st, ws := testStore(t)
	must(0, os.WriteFile(filepath.Join(st.home, "config.json"), []byte(`{"agent":{"background_reminder_turns":2}}`), 0o600))(t)
	s := newSession(t, ws)
	must(s.Append(ctx, Item{Type: User, Text: "watch the soak test"}))(t)
	must0(t, s.EndTurn(ctx, Turn{}))
	rec := must(s.Shell(ctx, "sleep 300", ShellOptions{TimeoutSecs: 600}))(t).Receipt
	if rec == nil {
		t.Fatal("no receipt")
	}
	counts := []int{}
	for range 5 {
		must0(t, s.EndTurn(ctx, Turn{}))
		counts = append(counts, len(reminders(s)))
	}
	// The line began after turn 1: reminders at the ends of turns 3 and 5.
	if want := []int{0, 1, 1, 2, 2}; !slices.Equal(counts, want) {
		t.Fatalf("reminders after turns 2..6: %v, want %v", counts, want)
	}
	r := reminders(s)[0]
	if !strings.Contains(r.Text, "\n- "+rec.Work+" (shell job, 2 turns): sleep 300") {
		t.Fatalf("reminder %q", r.Text)
	}
	must(s.Append(ctx, Item{Type: User, Text: "and now?"}))(t)
	must(s.Compact(ctx, "", ""))(t)
	if n := len(reminders(s)); n != 3 {
		t.Fatalf("after a compaction: %d reminders", n)
	}

	// Watched: heard of, delivered by the watcher.
	ch := settledCh(s)
	must0(t, s.EndTurn(ctx, Turn{})) // turn 7: none, the compaction was at 6
	must0(t, s.EndTurn(ctx, Turn{})) // turn 8
	if n := len(reminders(s)); n != 3 {
		t.Fatalf("a watched session got its reminder without Deliver: %d", n)
	}
	<-ch
	its := must(s.Deliver(ctx))(t)
	if len(its) != 1 || its[0].Type != Reminder || len(reminders(s)) != 4 {
		t.Fatalf("delivered %+v", its)
	}

	// Settled: nothing to remind of.
	must(s.TaskControl(ctx, TaskControlRequest{Action: "cancel", TaskID: rec.Work}))(t)
	deliverUntil(t, s, ch, 1)
	for range 4 {
		must0(t, s.EndTurn(ctx, Turn{}))
	}
	must(s.Append(ctx, Item{Type: User, Text: "done?"}))(t)
	must(s.Compact(ctx, "", ""))(t)
	if n := len(reminders(s)); n != 4 {
		t.Fatalf("reminders with nothing running: %d", n)
	}
}

// TestSessionRemindersOff: without agent.background_reminder_turns, turns
// bring no reminder, however many; a compaction still does.
func TestSessionRemindersOff(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	s := newSession(t, ws)
	must(s.Append(ctx, Item{Type: User, Text: "watch"}))(t)
	must(s.Shell(ctx, "sleep 300", ShellOptions{TimeoutSecs: 600}))(t)
	for range 6 {
		must0(t, s.EndTurn(ctx, Turn{}))
	}
	if n := len(reminders(s)); n != 0 {
		t.Fatalf("%d reminders with the key off", n)
	}
	must(s.Append(ctx, Item{Type: User, Text: "still there?"}))(t)
	must(s.Compact(ctx, "", ""))(t)
	if r := reminders(s); len(r) != 1 || !strings.Contains(r[0].Text, "sleep 300") {
		t.Fatalf("after a compaction: %+v", r)
	}
}

// TestSessionPauseWork: task_control's pause pauses a running workflow
// only (a shell job or a task is refused, nothing written); the paused run
// takes no chip, a reader without the session sees it paused under the
// same id after the owner is gone (it is not interrupted), and only a
// workflow is resumed.
func TestSessionPauseWork(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	s := newSession(t, ws)
	must(s.Append(ctx, Item{Type: User, Text: "nightly"}))(t)
	started := make(chan struct{})
	c := must(s.StartWork(ctx, WorkStart{Type: "workflow", Label: "nightly", Background: true}, func(ctx context.Context) WorkResult {
		close(started)
		<-ctx.Done()
		return WorkResult{}
	}))(t)
	<-started
	id := c.Receipt.Work
	job := must(s.Shell(ctx, "sleep 300", ShellOptions{TimeoutSecs: 600}))(t).Receipt.Work
	if _, err := s.TaskControl(ctx, TaskControlRequest{Action: "pause", TaskID: job}); !errors.Is(err, ErrRefused) ||
		!strings.Contains(err.Error(), "only a workflow run is paused") {
		t.Fatalf("pause of a shell job: %v", err)
	}
	if tasks, shells := s.Running(); tasks != 1 || shells != 1 {
		t.Fatalf("running %d %d", tasks, shells)
	}
	a := must(s.TaskControl(ctx, TaskControlRequest{Action: "pause", TaskID: id}))(t)
	if a.Work.State != "paused" || a.Work.ID != id {
		t.Fatalf("pause answered %+v", a.Work)
	}
	if tasks, _ := s.Running(); tasks != 0 {
		t.Fatalf("a paused workflow has a chip: %d", tasks)
	}
	if _, err := s.ResumeWork(ctx, job, WorkResume{}, func(context.Context) WorkResult { return WorkResult{} }); !errors.Is(err, ErrRefused) {
		t.Fatalf("resume of a shell job: %v", err)
	}
	if _, err := ws.TaskControl(ctx, s.ID(), TaskControlRequest{Action: "pause", TaskID: id}); !errors.Is(err, ErrRefused) {
		t.Fatalf("pause without owning the session: %v", err)
	}
	must0(t, s.Close())
	st := must(ws.TaskControl(ctx, s.ID(), TaskControlRequest{Action: "status", TaskID: id}))(t)
	if st.Status.Work.State != "paused" || st.Status.Work.Outcome != "" {
		t.Fatalf("after the close: %+v", st.Status.Work)
	}
}
