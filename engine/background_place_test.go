package engine

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"cairn/journal"
)

// TestShellJobPlacedWhereItStarted: a background line's record names the
// newest item when it was started, not the one when its job began to run:
// on a remote workspace's host (SessionOptions.Elsewhere) the client's
// next call moves the place on right after shell.start is answered, and a
// job placed there would count in the later turn for a file revert and
// /diff. The place moves as soon as ShellJob returns.
func TestShellJobPlacedWhereItStarted(t *testing.T) {
	e := newSnapEnv(t, "")
	var mu sync.Mutex
	place := Place{Call: "i-first", Item: "i-first"}
	s := e.ws.Create(SessionOptions{Elsewhere: func() Place {
		mu.Lock()
		defer mu.Unlock()
		return place
	}})
	defer s.Close()
	rc := must(s.ShellJob(e.ctx, "job", "echo job > j.txt", ShellOptions{TimeoutSecs: 600}))(t)
	mu.Lock()
	place = Place{Call: "i-second", Item: "i-second"}
	mu.Unlock()
	for {
		a := must(s.TaskControl(e.ctx, TaskControlRequest{Action: "status", TaskID: rc.Work}))(t)
		if !a.Status.Live() {
			break
		}
		time.Sleep(time.Millisecond)
	}
	e.want("j.txt", "job\n")
	var items []string
	journal.Read(e.store.fsys, changesName(e.ws.dir, s.ID()), func(b []byte) error {
		var l struct {
			Kind string `json:"kind"`
			Tool string `json:"tool"`
			Item string `json:"item"`
		}
		if json.Unmarshal(b, &l) == nil && l.Tool == "exec" {
			items = append(items, l.Kind+" "+l.Item)
		}
		return nil
	})
	if len(items) != 2 || items[0] != "call i-first" || items[1] != "record i-first" {
		t.Fatalf("the job's lines %q, want its call and record lines at i-first, where it started", items)
	}
}
