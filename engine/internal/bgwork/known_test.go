package bgwork

import (
	"errors"
	"testing"

	"cairn/engine/internal/tasks"
	"cairn/internal/vfs"
	"cairn/journal"
)

// TestAgree: tasks the ledger lacks are admitted (held as their records
// say) and settled when they ended, with nothing delivered; a continue
// since is continued; a second Agree writes nothing; a reader's Agree
// folds the same without writing.
func TestAgree(t *testing.T) {
	m := vfs.NewMem()
	l, _ := openLedger(t, m, Options{})
	ks := []Known{
		{ID: "look-around", Label: "Look around", Calls: []string{"i-1"}, Held: true},
		{ID: "done-task", Calls: []string{"i-2"}, Outcome: Succeeded},
	}
	if err := l.Agree(ks); err != nil {
		t.Fatal(err)
	}
	st := l.State()
	if w, _ := st.Work("look-around"); w.State != StateRunning || !w.Held || w.Type != TypeTask || w.Label != "Look around" {
		t.Fatalf("%+v", w)
	}
	if w, _ := st.Work("done-task"); w.Outcome != Succeeded || !w.Archived || len(st.Deliveries("done-task")) != 0 {
		t.Fatalf("%+v", w)
	}
	// Ended, and the other continued and running again.
	ks[0].Outcome = Cancelled
	ks[1].Calls, ks[1].Outcome = []string{"i-2", "i-3"}, ""
	if err := l.Agree(ks); err != nil {
		t.Fatal(err)
	}
	st = l.State()
	if w, _ := st.Work("look-around"); w.Outcome != Cancelled {
		t.Fatalf("%+v", w)
	}
	if w, _ := st.Work("done-task"); w.State != StateRunning || len(w.Calls) != 2 {
		t.Fatalf("%+v", w)
	}
	n := countLines(t, m)
	if err := l.Agree(ks); err != nil {
		t.Fatal(err)
	}
	if countLines(t, m) != n {
		t.Fatal("a second Agree wrote lines")
	}
	l.Close()
	// A reader: the record of a third task, folded in memory only.
	rd, err := Read(m, ledgerName)
	if err != nil {
		t.Fatal(err)
	}
	rd.Agree(append(ks, Known{ID: "third", Calls: []string{"i-4"}, Outcome: Interrupted}))
	if w, ok := rd.Work("third"); !ok || w.Outcome != Interrupted {
		t.Fatalf("%+v", w)
	}
	if countLines(t, m) != n {
		t.Fatal("a reader's Agree wrote lines")
	}
}

func countLines(t *testing.T, fsys vfs.FS) int {
	t.Helper()
	n := 0
	if _, err := journal.Read(fsys, ledgerName, func([]byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// KnownTask is the one task of recs asked for; nil when recs lacks it or
// could not be read.
func TestKnownTask(t *testing.T) {
	recs := []*tasks.Record{{ID: "a", Type: tasks.TypeAgent}, {ID: "b", Type: tasks.TypeAgent}}
	if got := KnownTask(recs, nil, "b"); len(got) != 1 || got[0].ID != "b" {
		t.Fatalf("KnownTask(b) = %+v", got)
	}
	if got := KnownTask(recs, nil, "c"); got != nil {
		t.Fatalf("KnownTask(c) = %+v", got)
	}
	if got := KnownTask(recs, errors.New("unread"), "b"); got != nil {
		t.Fatalf("KnownTask with an error = %+v", got)
	}
}

// ReadQuery answers from the journal as it is read: the known tasks
// agreed, live work interrupted when its owner is gone; a bad request is
// ErrInvalid, a missing journal empty.
func TestReadQuery(t *testing.T) {
	if got := LedgerName("", "s1"); got != ledgerName {
		t.Fatalf("LedgerName = %q, want %q (the format's place)", got, ledgerName)
	}
	m := vfs.NewMem()
	l, _ := openLedger(t, m, Options{})
	must(l.Admit(Admission{ID: "job", Type: TypeShell, Background: true}))(t)
	ks := []Known{{ID: "look", Calls: []string{"i-1"}}}
	st := func(gone bool) string {
		a := must(ReadQuery(m, ledgerName, Request{Action: ActionStatus, TaskID: "job"}, ks, gone))(t)
		return a.Status.State
	}
	if got := st(false); got != StateRunning {
		t.Fatalf("owned: job is %s", got)
	}
	if got := st(true); got == StateRunning {
		t.Fatal("owner gone: job still running")
	}
	if _, err := ReadQuery(m, ledgerName, Request{Action: ActionStatus, TaskID: "look"}, ks, false); err != nil {
		t.Fatalf("known task: %v", err)
	}
	_, err := ReadQuery(m, ledgerName, Request{Action: "nope"}, nil, false)
	wantErr(t, err, ErrInvalid)
	if a, err := ReadQuery(m, "tasks/none/work.jsonl", Request{Action: ActionList}, nil, false); err != nil || len(a.Page.Works) != 0 {
		t.Fatalf("missing journal: %+v, %v", a, err)
	}
}
