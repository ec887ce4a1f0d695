package engine

import (
	"context"
	"errors"
	"testing"
)

// TestHeldShellOutlivesClose: a shell job run elsewhere (a remote
// workspace's host) is held work of the session: a close and a later open
// leave it running (a local job would be interrupted), a cancel here asks
// where it runs, and the outcome settled here is delivered once, as a
// local job's result is; told twice, it changes nothing.
func TestHeldShellOutlivesClose(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	s := newSession(t, ws)

	rc := must(s.AdmitHeldShell(ctx, "sleep 100", ""))(t)
	if rc.Work != "shell" || !rc.Background {
		t.Fatalf("%+v", rc)
	}
	if _, shells := s.Running(); shells != 1 {
		t.Fatalf("running shells %d", shells)
	}
	id := s.ID()
	must(0, s.Close())(t)
	s = must(ws.Open(ctx, id, SessionOptions{}))(t)
	defer s.Close()
	held := must(s.HeldShells())(t)
	if len(held) != 1 || held[0].ID != "shell" || held[0].State != "running" {
		t.Fatalf("after a reopen: %+v", held)
	}
	var asked []string
	s.OnHeldShellCancel(func(id string) error { asked = append(asked, id); return nil })
	a := must(s.TaskControl(ctx, TaskControlRequest{Action: "cancel", TaskID: "shell"}))(t)
	if a.Work.State != "cancelling" || len(asked) != 1 || asked[0] != "shell" {
		t.Fatalf("cancel: %+v, asked %v", a.Work, asked)
	}
	ch := settledCh(s)
	if ok := must(s.SettleHeldShell("shell", WorkResult{Outcome: "cancelled", Text: "exit 137"}))(t); !ok {
		t.Fatal("not settled")
	}
	its := deliverUntil(t, s, ch, 1)
	if len(its) != 1 || its[0].Task != "shell" || its[0].Text != "shell cancelled: exit 137" {
		t.Fatalf("%+v", its)
	}
	if ok := must(s.SettleHeldShell("shell", WorkResult{Outcome: "succeeded"}))(t); ok {
		t.Fatal("settled twice")
	}
	if more := must(s.Deliver(ctx))(t); len(more) != 0 {
		t.Fatalf("delivered again: %+v", more)
	}
	if _, err := s.SettleHeldShell("nope", WorkResult{Outcome: "failed"}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown job: %v", err)
	}
}
