package reliability

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cairn/engine"
)

// The kill -9 rounds of sub-agent transcripts: a worker appends to two
// tasks of one session (one it owns, one held) and acknowledges each item;
// the test SIGKILLs it mid-append. Every acknowledged item must read back
// in order, the owned task must read as interrupted and the held one as
// running, a torn tail must be cut by the next writer (with a repair
// line), and fsck must find nothing wrong.

const taskWorkerEnv = "CAIRN_TASK_WORKER"

func taskWorker() error {
	ctx := context.Background()
	seed, ws, err := soakWorkspace()
	if err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(seed, 11))
	sess := ws.Create(engine.SessionOptions{})
	if _, err := sess.Append(ctx, engine.Item{Type: engine.User, Text: "delegate"}); err != nil {
		return err
	}
	owned, _, err := sess.StartTask(ctx, engine.TaskStart{Description: "owned"})
	if err != nil {
		return err
	}
	held, _, err := sess.StartTask(ctx, engine.TaskStart{Description: "held", Held: true})
	if err != nil {
		return err
	}
	out := bufio.NewWriter(os.Stdout)
	fmt.Fprintf(out, "session %s\n", sess.ID())
	out.Flush()
	for i := 0; ; i++ {
		t := owned
		if r.IntN(2) == 0 {
			t = held
		}
		reps := 1 + r.IntN(300)
		if r.IntN(8) == 0 {
			reps = 2000 + r.IntN(2000) // over 16 KiB: a payload object first
		}
		text := strings.Repeat(fmt.Sprintf("item %d-%d ", seed, i), reps)
		it, err := t.Append(ctx, engine.Item{Type: engine.Assistant, Text: text})
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "ack %s %s %s\n", t.ID(), it.ID, sum(text))
		out.Flush()
	}
}

func TestKill9TaskTranscripts(t *testing.T) {
	ctx := context.Background()
	n := killRounds()
	r := rand.New(rand.NewPCG(17, 17))
	for round := range n {
		home := filepath.Join(t.TempDir(), "home")
		project := t.TempDir()
		w := startWorker(t, taskWorkerEnv+"=1", "CAIRN_SOAK_HOME="+home, "CAIRN_SOAK_PROJECT="+project,
			fmt.Sprintf("CAIRN_SOAK_SEED=%d", round))
		session := ""
		acked := map[string][][2]string{} // task -> [item id, text sum] in order
		// The kill comes a random while after the session line: mid-append.
		var deadline <-chan time.Time
	read:
		for {
			select {
			case l, ok := <-w.lines:
				if !ok {
					break read
				}
				f := strings.Fields(l)
				switch f[0] {
				case "session":
					session = f[1]
					deadline = time.After(time.Duration(5+r.IntN(150)) * time.Millisecond)
				case "ack":
					acked[f[1]] = append(acked[f[1]], [2]string{f[2], f[3]})
				}
			case <-deadline:
				break read
			}
		}
		// Acknowledgements already in the pipe were made before the kill.
		w.kill(t, round, func(l string) {
			if f := strings.Fields(l); len(f) == 4 && f[0] == "ack" {
				acked[f[1]] = append(acked[f[1]], [2]string{f[2], f[3]})
			}
		})
		store, err := engine.Open(home)
		if err != nil {
			t.Fatal(err)
		}
		ws, err := store.Workspace(project)
		if err != nil {
			t.Fatal(err)
		}
		// A torn tail on each transcript, as a crash mid-write leaves one.
		for _, task := range []string{"owned", "held"} {
			name := filepath.Join(home, "workspaces", ws.Key(), "tasks", session, task+".items.jsonl")
			f, err := os.OpenFile(name, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(`{"v":1,"kind":"item","id":"i-torn`)
			f.Close()
		}
		states := map[string]string{}
		recs, err := ws.Tasks(ctx, session)
		if err != nil {
			t.Fatal(err)
		}
		for _, rec := range recs {
			states[rec.ID] = rec.State
		}
		if states["owned"] != engine.TaskInterrupted || states["held"] != engine.TaskRunning {
			t.Fatalf("round %d: states after the kill %v", round, states)
		}
		for task, want := range acked {
			v, err := ws.ReadTask(ctx, session, task)
			if err != nil {
				t.Fatalf("round %d: task %s: %v", round, task, err)
			}
			got := v.Transcript()
			if len(got) < len(want) || len(got) > len(want)+1 {
				t.Fatalf("round %d: task %s holds %d items, %d acknowledged", round, task, len(got), len(want))
			}
			for i, w := range want {
				if got[i].ID != w[0] || sum(got[i].Text) != w[1] {
					t.Fatalf("round %d: task %s item %d: %s %s, acknowledged %s %s", round, task, i, got[i].ID, sum(got[i].Text), w[0], w[1])
				}
			}
		}
		// The next owner opens the held task: its writer cuts the torn
		// tail and the task goes on.
		sess, err := ws.Open(ctx, session, engine.SessionOptions{})
		if err != nil {
			t.Fatalf("round %d: open after the kill: %v", round, err)
		}
		h, err := sess.Task(ctx, "held")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.Append(ctx, engine.Item{Type: engine.Assistant, Text: "after the kill"}); err != nil {
			t.Fatal(err)
		}
		if err := h.End(ctx, engine.TaskSettled); err != nil {
			t.Fatal(err)
		}
		if _, err := sess.Task(ctx, "owned"); err == nil {
			t.Fatalf("round %d: an interrupted task was opened to run again", round)
		}
		sess.Close()
		v, err := ws.ReadTask(ctx, session, "held")
		if err != nil {
			t.Fatal(err)
		}
		if tr := v.Transcript(); tr[len(tr)-1].Text != "after the kill" || len(tr) < len(acked["held"])+1 {
			t.Fatalf("round %d: the held task after the kill: %d items", round, len(tr))
		}
		b, _ := os.ReadFile(filepath.Join(home, "workspaces", ws.Key(), "tasks", session, "held.items.jsonl"))
		if !strings.Contains(string(b), `"kind":"repair"`) || strings.Contains(string(b), "i-torn") {
			t.Fatalf("round %d: the torn tail was not cut with a repair line", round)
		}
		rep, err := store.Fsck(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Problems) != 0 {
			t.Fatalf("round %d: fsck: %+v", round, rep.Problems)
		}
		store.Close()
	}
}
