package reliability

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cairn/engine"
)

// The kill -9 rounds of exec records: a worker runs shell lines through
// Session.Exec, each changing files of the workspace and recorded, and
// prints an "ack" line with its record id after each returns. Odd rounds
// kill it while a line runs (the line leaves a marker file once its
// changes are made, then sleeps), even rounds at a random moment. After
// each kill the next owner must find every acknowledged record, close the
// call line the kill left open with an unrecorded line why "interrupted",
// and show the interrupted line as interrupted in the shell history.

const execWorkerEnv = "CAIRN_EXEC_WORKER"

// execWorker runs until killed (TestMain starts it).
func execWorker() error {
	ctx := context.Background()
	seed, ws, err := soakWorkspace()
	if err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(seed, 13))
	sess, created, err := latestSession(ctx, ws)
	if err != nil {
		return err
	}
	if created {
		if _, err := sess.Append(ctx, engine.Item{Type: engine.User, Text: "exec rounds"}); err != nil {
			return err
		}
		if err := sess.Commit(ctx); err != nil {
			return err
		}
	}
	out := bufio.NewWriter(os.Stdout)
	for i := 0; ; i++ {
		// A variable sends the line to the whole workspace; the marker is
		// made once its change is; a long sleep holds it running.
		line := fmt.Sprintf("v=%d-%d; echo $v > f%d.txt", seed, i, r.IntN(4))
		if r.IntN(3) == 0 {
			line += fmt.Sprintf("; touch .m-%d-%d; sleep 3", seed, i)
		}
		a, err := sess.Exec(ctx, line, engine.ExecOptions{})
		if err != nil {
			return err
		}
		if a.Snapshot == nil {
			return fmt.Errorf("line %q made no record: %+v", line, a)
		}
		fmt.Fprintf(out, "ack exec %s %s\n", sess.ID(), *a.Snapshot)
		out.Flush()
	}
}

func TestKill9Exec(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	project := t.TempDir()
	n := killRounds()
	r := rand.New(rand.NewPCG(7, 7))
	acked := map[string]bool{} // record ids
	session := ""
	midRun, interrupted := 0, 0
	for round := range n {
		w := startWorker(t, execWorkerEnv+"=1", "CAIRN_SOAK_HOME="+home, "CAIRN_SOAK_PROJECT="+project,
			fmt.Sprintf("CAIRN_SOAK_SEED=%d", round))
		var deadline <-chan time.Time
		var marker <-chan string
		if round%2 == 1 {
			marker = waitMarker(project)
		} else {
			deadline = time.After(time.Duration(20+r.IntN(300)) * time.Millisecond)
		}
		killedMidRun := false
	read:
		for {
			select {
			case l, ok := <-w.lines:
				if !ok {
					break read
				}
				f := strings.Fields(l)
				session = f[2]
				acked[f[3]] = true
			case <-deadline:
				break read
			case <-marker:
				// A line is running, its call line synced: an
				// acknowledgement may still be on its way, read below.
				killedMidRun = true
				break read
			}
		}
		w.kill(t, round, func(l string) {
			f := strings.Fields(l)
			session = f[2]
			acked[f[3]] = true
		})
		if session == "" {
			continue
		}
		now, stopped := checkExecAfterKill(t, home, project, session, acked, round%10 == 9 || round == n-1)
		if killedMidRun {
			if now == interrupted {
				t.Fatalf("round %d: killed while a line ran, and no call line was closed as interrupted", round)
			}
			midRun++
			if stopped >= 0 && stopped < midRun {
				t.Fatalf("round %d: %d lines killed while they ran, %d interrupted in the shell history", round, midRun, stopped)
			}
		}
		interrupted = now
	}
	if n >= 2 && midRun == 0 {
		t.Fatal("no round killed a line while it ran")
	}
	t.Logf("rounds: %d, records acknowledged: %d, killed while a line ran: %d", n, len(acked), midRun)
}

// waitMarker reports the first marker file of a new running line in
// project (markers already there are removed first).
func waitMarker(project string) <-chan string {
	old, _ := filepath.Glob(filepath.Join(project, ".m-*"))
	for _, m := range old {
		os.Remove(m)
	}
	ch := make(chan string, 1)
	go func() {
		for i := 0; i < 2000; i++ {
			if ms, _ := filepath.Glob(filepath.Join(project, ".m-*")); len(ms) > 0 {
				ch <- ms[0]
				return
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()
	return ch
}

// checkExecAfterKill opens the session as its next owner and checks its
// changes journal: every acknowledged record is there, every call line is
// closed, an interrupted one by an unrecorded line why "interrupted", and
// fsck finds nothing wrong (when whole). It returns how many calls were
// closed as interrupted, and how many shell lines read as interrupted.
func checkExecAfterKill(t *testing.T, home, project, id string, acked map[string]bool, whole bool) (int, int) {
	t.Helper()
	ctx := context.Background()
	store, err := engine.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ws, err := store.Workspace(project)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ws.Open(ctx, id, engine.SessionOptions{})
	if err != nil {
		t.Fatalf("open after kill: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	type line struct {
		Kind  string            `json:"kind"`
		ID    string            `json:"id"`
		Why   string            `json:"why"`
		Files []json.RawMessage `json:"files"`
	}
	open := map[string]bool{}
	records := map[string]bool{}
	interrupted := 0
	b, err := os.ReadFile(filepath.Join(ws.Folder(), "sessions", id+".changes.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range completeLines(b) {
		var l line
		if err := json.Unmarshal([]byte(raw), &l); err != nil {
			t.Fatalf("changes journal line %q: %v", raw, err)
		}
		switch l.Kind {
		case "call":
			open[l.ID] = true
		case "record":
			if !open[l.ID] {
				t.Errorf("record %s without its call line", l.ID)
			}
			delete(open, l.ID)
			records[l.ID] = len(l.Files) > 0
		case "unrecorded":
			delete(open, l.ID)
			if l.Why == "interrupted" {
				interrupted++
			}
		}
	}
	if len(open) > 0 {
		t.Fatalf("call lines left open after the next owner opened the session: %v", open)
	}
	for rec := range acked {
		if !records[rec] {
			t.Fatalf("acknowledged record %s is not in the journal", rec)
		}
	}
	h, err := ws.ShellHistory(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	stopped := 0
	for _, e := range h {
		if e.Status == engine.ShellInterrupted {
			stopped++
		}
	}
	// A kill between a call line and its shell line's start leaves a call
	// interrupted with no shell line: never more shell lines than calls.
	if stopped > interrupted {
		t.Fatalf("%d interrupted calls, %d interrupted shell lines", interrupted, stopped)
	}
	if whole {
		rep, err := store.Fsck(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Problems) > 0 {
			t.Fatalf("fsck after kill: %+v", rep.Problems)
		}
	}
	if len(h) >= engine.ShellKeep {
		stopped = -1 // older lines trimmed from the history: not counted
	}
	return interrupted, stopped
}
