package reliability

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cairn/engine"
)

// The kill -9 rounds of an agent's shell commands under hooks: a worker
// plays the agent and its hooks, each command in three steps as three
// hook processes would (BeginExec in one Brief open, the command,
// SettleChange in the next), and prints an "ack" line with the record's id once
// SettleChange returned. It is killed at a random moment: between the
// hooks, inside either, or while the command runs. After each kill the
// next open must find every acknowledged record with its call line, leave
// no call line open (the pre-tool hook writes none), and fsck must find
// nothing wrong, a marker the kill left behind included.

const hookExecWorkerEnv = "CAIRN_HOOK_EXEC_WORKER"

// hookExecWorker runs until killed (TestMain starts it).
func hookExecWorker() error {
	ctx := context.Background()
	seed, ws, err := soakWorkspace()
	if err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(seed, 17))
	a := engine.AgentSession{Agent: "claude-code", ID: "kill9-hooks"}
	hook := func(fn func(s *engine.Session) error) error {
		// Brief, as `cairn hook` opens the session (no open line; the
		// record's lines end with the close line).
		s, err := ws.OpenAgent(ctx, a, engine.SessionOptions{Brief: true}, true, time.Second)
		if err != nil {
			return err
		}
		defer s.Close()
		if err := fn(s); err != nil {
			return err
		}
		return s.Close()
	}
	if err := hook(func(s *engine.Session) error {
		_, err := s.Append(ctx, engine.Item{Type: engine.User, Text: fmt.Sprintf("round %d", seed)})
		return err
	}); err != nil {
		return err
	}
	out := bufio.NewWriter(os.Stdout)
	for i := 0; ; i++ {
		call := fmt.Sprintf("toolu_%d_%d", seed, i)
		line := fmt.Sprintf("v=%d-%d; echo $v > f%d.txt", seed, i, r.IntN(4))
		if err := hook(func(s *engine.Session) error {
			_, err := s.BeginExec(ctx, "bash", call, line, "")
			return err
		}); err != nil {
			return err
		}
		cmd := exec.Command("/bin/sh", "-c", line)
		cmd.Dir = ws.Path()
		if err := cmd.Run(); err != nil {
			return err
		}
		var id string
		if err := hook(func(s *engine.Session) error {
			ans, err := s.SettleChange(ctx, call)
			if err != nil {
				return err
			}
			if ans == nil || ans.Snapshot == nil {
				return fmt.Errorf("command %q made no record: %+v", line, ans)
			}
			id = *ans.Snapshot
			return nil
		}); err != nil {
			return err
		}
		fmt.Fprintf(out, "ack %s\n", id)
		out.Flush()
	}
}

func TestKill9HookExec(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	project := t.TempDir()
	n := killRounds()
	r := rand.New(rand.NewPCG(9, 9))
	acked := map[string]bool{}
	for round := range n {
		w := startWorker(t, hookExecWorkerEnv+"=1", "CAIRN_SOAK_HOME="+home, "CAIRN_SOAK_PROJECT="+project,
			fmt.Sprintf("CAIRN_SOAK_SEED=%d", round))
		deadline := time.After(time.Duration(50+r.IntN(700)) * time.Millisecond)
	read:
		for {
			select {
			case l, ok := <-w.lines:
				if !ok {
					break read
				}
				acked[strings.Fields(l)[1]] = true
			case <-deadline:
				break read
			}
		}
		w.kill(t, round, func(l string) { acked[strings.Fields(l)[1]] = true })
		checkHookExecAfterKill(t, home, project, acked, round%10 == 9 || round == n-1)
	}
	if len(acked) == 0 {
		t.Fatal("no command was acknowledged")
	}
	t.Logf("rounds: %d, records acknowledged: %d", n, len(acked))
}

// checkHookExecAfterKill opens the session as the next hook would and
// checks its changes journal (see the top of this file).
func checkHookExecAfterKill(t *testing.T, home, project string, acked map[string]bool, whole bool) {
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
	a := engine.AgentSession{Agent: "claude-code", ID: "kill9-hooks"}
	s, err := ws.OpenAgent(ctx, a, engine.SessionOptions{}, false, time.Second)
	if err != nil {
		if len(acked) == 0 {
			return // killed before the session was made
		}
		t.Fatalf("open after kill: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(ws.Folder(), "sessions", s.ID()+".changes.jsonl"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	open, records := map[string]bool{}, map[string]bool{}
	for _, raw := range completeLines(b) {
		if raw == "" {
			continue
		}
		var l struct {
			Kind string `json:"kind"`
			ID   string `json:"id"`
			Why  string `json:"why"`
		}
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
			records[l.ID] = true
		case "unrecorded":
			t.Errorf("unrecorded line %s (%s): the pre-tool hook leaves no call line to close", l.ID, l.Why)
		}
	}
	if len(open) > 0 {
		t.Fatalf("call lines without their record: %v", open)
	}
	for rec := range acked {
		if !records[rec] {
			t.Fatalf("acknowledged record %s is not in the journal", rec)
		}
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
}

// completeLines is a journal's lines up to its last newline: a kill -9
// mid-write may leave a torn last line, which readers skip and the next
// writer cuts (journal.Read).
func completeLines(b []byte) []string {
	s := string(b)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return strings.Split(s[:i], "\n")
	}
	return nil
}
