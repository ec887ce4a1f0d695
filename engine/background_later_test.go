package engine

import (
	"context"
	"errors"
	"path"
	"strings"
	"sync"
	"testing"
	"time"

	"cairn/engine/internal/hookmark"
	"cairn/engine/internal/overlap"
	"cairn/internal/vfs"
)

// TestBackgroundLineEndsWhileItsSessionRunsACall: a background line that
// ends (by itself, or cancelled once it runs) while a call of its session
// holds the undo stack's lock, as a foreground shell line does for its whole
// run, gives its result at once, saying its record follows: the call may
// be a line polling for that result, which would otherwise wait for the
// record and the record for it. Once the call ends, the record is written
// (call and record lines naming what the job changed). A crash between the
// two leaves the job's marker: the next open closes it.
func TestBackgroundLineEndsWhileItsSessionRunsACall(t *testing.T) {
	for _, c := range []struct {
		name, line string
		cancel     bool
		outcome    string
	}{
		{"ends", "while [ ! -e go ]; do sleep 0.01; done; echo b > b.txt", false, "succeeded: exit 0"},
		{"cancelled", "echo b > b.txt; touch go; sleep 300", true, "cancelled: exit "},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newSnapEnv(t, "")
			s := e.ws.Create(SessionOptions{Notice: func(n string) { t.Log("notice: ", n) }})
			defer func() { s.Close() }()
			ch := settledCh(s)
			must(s.Append(e.ctx, Item{Type: User, Text: "change things"}))(t)
			rc := must(s.Shell(e.ctx, c.line, ShellOptions{TimeoutSecs: 600}))(t).Receipt
			for {
				hist := must(e.ws.ShellHistory(e.ctx, s.ID()))(t)
				if len(hist) == 1 && hist[0].Status == ShellRunning {
					break
				}
				time.Sleep(time.Millisecond)
			}
			before := len(e.recLines(s))
			// A call of s runs from here.
			unlock := holdUndoStack(s)
			defer unlock()
			if c.cancel {
				for e.get("go") == "<absent>" {
					time.Sleep(time.Millisecond)
				}
				must(s.TaskControl(e.ctx, TaskControlRequest{Action: "cancel", TaskID: rc.Work}))(t)
			} else {
				e.put("go", "")
			}
			got := make(chan []Item, 1)
			go func() { got <- deliverUntil(t, s, ch, 1) }()
			var its []Item
			select {
			case its = <-got:
			case <-time.After(time.Minute):
				unlock()
				<-got
				t.Fatal("the background line's result waited for the call under way")
			}
			text := its[0].Text
			if !strings.HasPrefix(text, rc.Work+" "+c.outcome) || !strings.HasSuffix(text, ", its changes recorded once the call under way ends") {
				t.Fatalf("result %q", text)
			}
			// The marker as a crash now would leave it.
			marker := hookMarker(e.ws.dir, s.ID(), hookmark.JobCall(rc.Work))
			mb := must(vfs.ReadFile(e.store.fsys, marker))(t)
			tb := must(vfs.ReadFile(e.store.fsys, overlap.TreeName(marker)))(t)
			unlock()
			// The record follows: the job's run ends once it is written.
			deadline := time.Now().Add(time.Minute)
			for len(e.recLines(s)) < before+2 {
				if time.Now().After(deadline) {
					t.Fatalf("no record after the call ended: %s", e.recKinds(s))
				}
				time.Sleep(time.Millisecond)
			}
			rec := e.lastRecord(s)
			if len(rec.Files) == 0 || !strings.HasSuffix(rec.Files[0].Path, "b.txt") {
				t.Fatalf("the job's record %+v", rec)
			}
			must0(t, s.Close())
			if _, err := vfs.ReadFile(e.store.fsys, marker); !vfs.IsNotExist(err) {
				t.Fatalf("the settled job's marker stayed: %v", err)
			}
			n := len(e.recLines(s))

			// A crash between result and record: the marker is back; the
			// next open closes it, and the journal, which holds its
			// record, gets no second line for it.
			must0(t, e.store.fsys.MkdirAll(path.Dir(marker), 0o755))
			must0(t, vfs.ReplaceFile(e.store.fsys, marker, mb))
			must0(t, vfs.ReplaceFile(e.store.fsys, overlap.TreeName(marker), tb))
			s = must(e.ws.Open(context.Background(), s.ID(), SessionOptions{}))(t)
			must(s.Deliver(e.ctx))(t)
			if _, err := vfs.ReadFile(e.store.fsys, marker); !vfs.IsNotExist(err) {
				t.Fatalf("the marker a crash left is still there: %v", err)
			}
			if got := len(e.recLines(s)); got != n {
				t.Fatalf("%d lines after the reopen, want %d: %s", got, n, e.recKinds(s))
			}
		})
	}
}

// TestForegroundLineWaitsForABackgroundLine: a foreground line that waits
// for what a background line started just before it does sees it done.
// The background line used to begin (its walk and marker, under the undo
// stack's lock) only once the foreground line had ended, which waited
// for it until its own timeout.
func TestForegroundLineWaitsForABackgroundLine(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.ws.Create(SessionOptions{Notice: func(n string) { t.Log("notice: ", n) }})
	defer s.Close()
	ch := settledCh(s)
	must(s.Append(e.ctx, Item{Type: User, Text: "build, then wait for it"}))(t)
	rc := must(s.Shell(e.ctx, "echo built > out.txt", ShellOptions{TimeoutSecs: 600}))(t).Receipt
	ctx, cancel := context.WithTimeout(e.ctx, time.Minute)
	defer cancel()
	ans, err := s.Exec(ctx, "until [ -s out.txt ]; do sleep 0.01; done; cat out.txt", ExecOptions{})
	if err != nil || ans.ExitCode != 0 {
		t.Fatalf("the foreground line: exit %v, %v (it waited for a line that could not begin)", ans, err)
	}
	its := deliverUntil(t, s, ch, 1)
	if !strings.HasPrefix(its[0].Text, rc.Work+" succeeded: exit 0") {
		t.Fatalf("result %q", its[0].Text)
	}
	e.want("out.txt", "built\n")
}

// TestBackgroundLineBeginsAfterARevertBeforeTheNextCall: a file revert of
// another session holds the workspace's calls when a background line is
// started. Its receipt waits for its begin, after the revert: a receipt
// given first let the foreground line started next race the job for the
// calls, and when the line won, it held the undo stack's lock for its
// whole run while the job it waited for could not begin.
func TestBackgroundLineBeginsAfterARevertBeforeTheNextCall(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.ws.Create(SessionOptions{Notice: func(n string) { t.Log("notice: ", n) }})
	defer s.Close()
	must(s.Append(e.ctx, Item{Type: User, Text: "build, then wait for it"}))(t)
	must0(t, s.ws.ensure())
	for i := range 6 {
		// A file revert: taken once the calls of the round before let go.
		l, err := e.store.fsys.Lock(callsLockName(s.ws.dir))
		for errors.Is(err, vfs.ErrLocked) {
			time.Sleep(time.Millisecond)
			l, err = e.store.fsys.Lock(callsLockName(s.ws.dir))
		}
		must0(t, err)
		go func() {
			time.Sleep(30 * time.Millisecond)
			l.Release()
		}()
		e.put("out.txt", "")
		must(s.Shell(e.ctx, "sleep 0.05; echo built > out.txt", ShellOptions{TimeoutSecs: 600}))(t)
		ctx, cancel := context.WithTimeout(e.ctx, 30*time.Second)
		ans, err := s.Exec(ctx, "until [ -s out.txt ]; do sleep 0.01; done", ExecOptions{})
		cancel()
		if err != nil || ans.ExitCode != 0 {
			t.Fatalf("round %d: the foreground line: %v, %v (it waited for a line that could not begin)", i, ans, err)
		}
		for len(s.RunningWork()) > 0 {
			time.Sleep(time.Millisecond)
		}
	}
}

// holdUndoStack takes s's undo stack lock, as a foreground shell line
// holds it while it runs; unlock gives it back, once however often called.
func holdUndoStack(s *Session) (unlock func()) {
	s.snaps.mu.Lock()
	var once sync.Once
	return func() { once.Do(s.snaps.mu.Unlock) }
}
