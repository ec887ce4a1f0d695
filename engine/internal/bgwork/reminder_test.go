package bgwork

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"cairn/internal/vfs"
)

// TestReminders: a periodic reminder comes once Every turns have ended
// since the session's running work began, then every Every turns, never
// without running work and never with Every 0; a compaction asks for one
// whenever work runs. A reminder is delivered once, as an item of its own
// that wakes nothing, and the count goes on from the journal after a
// reopen.
func TestReminders(t *testing.T) {
	m := vfs.NewMem()
	l, _ := openLedger(t, m, Options{NewItem: seqItems()})
	remind := func(q Reminder) *Delivery {
		t.Helper()
		return must(l.Remind(q))(t)
	}
	// No work: nothing is due, whatever asks.
	if d := remind(Reminder{Turn: 9, Every: 1}); d != nil {
		t.Fatalf("a reminder with no work: %+v", d)
	}
	if d := remind(Reminder{Turn: 9, Compacted: true}); d != nil {
		t.Fatalf("a compaction reminder with no work: %+v", d)
	}
	// Held, so that the reopen below leaves it running.
	must(l.Admit(Admission{ID: "shell-sleep", Type: TypeShell, Label: "sleep 300", Background: true, Held: true, Turn: 4}))(t)
	must(l.Admit(Admission{ID: "helper", Type: TypeTask, Label: "Help", Held: true, Turn: 5}))(t)
	// A child's work is the child's: it is not named to the session.
	must(l.Admit(Admission{ID: "shell-make", Type: TypeShell, Owner: "helper", Label: "make", Held: true, Turn: 1}))(t)

	for turn := 4; turn <= 5; turn++ {
		if d := remind(Reminder{Turn: turn, Every: 2}); d != nil {
			t.Fatalf("turn %d, every 2, work since turn 4: %+v", turn, d)
		}
	}
	if d := remind(Reminder{Turn: 50, Every: 0}); d != nil {
		t.Fatalf("every 0 is off: %+v", d)
	}
	d := remind(Reminder{Turn: 6, Every: 2})
	if d == nil || d.Kind != DeliverReminder || d.Owner != "" || d.Wake || d.Work != "" ||
		!strings.Contains(d.Text, "(2 pieces)") || !strings.Contains(d.Text, "\n- shell-sleep (shell job, 2 turns): sleep 300\n- helper (task, 1 turn): Help") ||
		strings.Contains(d.Text, "shell-make") {
		t.Fatalf("turn 6: %+v", d)
	}
	if d := remind(Reminder{Turn: 7, Every: 2}); d != nil {
		t.Fatalf("turn 7, the last reminder at 6: %+v", d)
	}
	// A compaction reminds at once, and the period counts from it.
	c := remind(Reminder{Turn: 7, Compacted: true})
	if c == nil || !strings.Contains(c.Text, "shell-sleep") {
		t.Fatalf("after a compaction: %+v", c)
	}
	if d := remind(Reminder{Turn: 8, Every: 2}); d != nil {
		t.Fatalf("turn 8, the last reminder at 7: %+v", d)
	}
	checkFold(t, l)
	l.Close()

	// Reopened (the work held, so it still runs): the count goes on.
	l, _ = openLedger(t, m, Options{NewItem: seqItems()})
	if st := l.State(); st.reminded != 7 || len(st.Owed("")) != 2 {
		t.Fatalf("reopened: reminded at %d, owed %+v", st.reminded, st.Owed(""))
	}
	sink := openSink(t, m, "items.jsonl")
	if n := must(l.Deliver(context.Background(), "", sink))(t); n != 2 {
		t.Fatalf("delivered %d", n)
	}
	if n := must(l.Deliver(context.Background(), "", sink))(t); n != 0 {
		t.Fatalf("delivered again: %d", n)
	}
	items := must(readSink(m, "items.jsonl"))(t)
	if len(items) != 2 || items[0].What != "reminder:" || items[0].Wake {
		t.Fatalf("items %+v", items)
	}
	checkFold(t, l)
}

// TestReminderBounded: a reminder names at most MaxReminded pieces of
// work, oldest first, and counts the rest; a long label is cut.
func TestReminderBounded(t *testing.T) {
	l, _ := openLedger(t, vfs.NewMem(), Options{})
	for i := range MaxReminded + 3 {
		must(l.Admit(Admission{ID: fmt.Sprintf("job-%02d", i), Type: TypeShell, Label: strings.Repeat("x", 300), Turn: 1}))(t)
	}
	d := must(l.Remind(Reminder{Turn: 2, Compacted: true}))(t)
	if d == nil {
		t.Fatal("no reminder")
	}
	lines := strings.Split(d.Text, "\n")
	if len(lines) != MaxReminded+2 || !strings.Contains(lines[0], "13 pieces") || !strings.HasPrefix(lines[1], "- job-00 ") ||
		lines[len(lines)-1] != "- and 3 more (task_control list)" || len(lines[1]) > 120 {
		t.Fatalf("%d lines:\n%s", len(lines), d.Text)
	}
}

// TestWaking: the agent is to be woken while its own background work runs
// or a waking delivery is owed to it; not for work its caller waits for,
// not for a child's work, and not once continuation is stopped.
func TestWaking(t *testing.T) {
	l, _ := openLedger(t, vfs.NewMem(), Options{})
	waking := func() bool { return l.State().Waking() }
	must(l.Admit(Admission{ID: "waited", Type: TypeTask}))(t)
	must(l.Admit(Admission{ID: "shell-kid", Type: TypeShell, Owner: "waited", Background: true}))(t)
	if waking() {
		t.Fatal("a waited task and a child's job wake the session")
	}
	must(l.Admit(Admission{ID: "shell-bg", Type: TypeShell, Background: true}))(t)
	if !waking() {
		t.Fatal("a background job of the session does not wake it")
	}
	must(l.Settle("shell-bg", Result{}))(t) // its result is owed, and wakes
	if !waking() {
		t.Fatal("an owed result does not wake")
	}
	sink := openSink(t, vfs.NewMem(), "items.jsonl")
	must(l.Deliver(context.Background(), "", sink))(t)
	if waking() {
		t.Fatal("nothing left to wake for")
	}
	must(l.Admit(Admission{ID: "shell-bg-2", Type: TypeShell, Background: true}))(t)
	must(l.Stop())(t)
	if waking() {
		t.Fatal("stopped, yet waking")
	}
	must0(t, l.UserTurn())
	if !waking() {
		t.Fatal("a user turn does not turn it back on")
	}
}
