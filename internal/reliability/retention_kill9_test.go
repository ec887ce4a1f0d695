package reliability

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"cairn/engine"
)

// The kill -9 rounds of retention: a worker forgets a directory's sessions
// one by one, restores them, and trims one, over and over, until it is
// killed. After each kill the next open of the store settles the forget,
// restore or trim in flight from its plan: every session is whole in
// exactly one place (listed and readable in its workspace, or in the
// trash), nothing is split or left half done, and fsck finds nothing.

const retentionWorkerEnv = "CAIRN_RETENTION_WORKER"

// retentionWorker forgets, restores and trims the sessions of
// CAIRN_SOAK_PROJECT until killed, printing a line after each step.
func retentionWorker() error {
	ctx := context.Background()
	seed, ws, err := soakWorkspace() // the open settles what a kill left
	if err != nil {
		return err
	}
	store := ws.Store()
	r := rand.New(rand.NewPCG(seed, 11))
	out := bufio.NewWriter(os.Stdout)
	for {
		trash, err := store.TrashList(ctx)
		if err != nil {
			return err
		}
		for _, t := range trash {
			if _, err := store.Restore(ctx, t.Session); err != nil {
				return err
			}
			fmt.Fprintln(out, "restored", t.Session)
			out.Flush()
		}
		l, _, err := ws.List(ctx)
		if err != nil {
			return err
		}
		if len(l) > 0 {
			id := l[r.IntN(len(l))].ID
			if _, err := store.RunRetention(ctx, engine.RetentionOptions{Action: engine.ActionTrim, Sessions: []string{id}}); err != nil {
				return err
			}
			fmt.Fprintln(out, "trimmed", id)
			out.Flush()
		}
		for _, s := range l {
			if _, err := store.RunRetention(ctx, engine.RetentionOptions{Action: engine.ActionForget, Sessions: []string{s.ID}}); err != nil {
				return err
			}
			fmt.Fprintln(out, "forgot", s.ID)
			out.Flush()
		}
	}
}

func TestKill9Retention(t *testing.T) {
	ctx := context.Background()
	home := filepath.Join(t.TempDir(), "home")
	project := t.TempDir()
	store, err := engine.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := store.Workspace(project)
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("a prompt long enough to be a payload object\n", 600)
	texts := map[string]string{}
	for i := range 6 {
		sess := ws.Create(engine.SessionOptions{})
		text := fmt.Sprint(i, big)
		if _, err := sess.Append(ctx, engine.Item{Type: engine.User, Text: text}); err != nil {
			t.Fatal(err)
		}
		if _, err := sess.PutOutput(ctx, "grep", strings.NewReader(big)); err != nil {
			t.Fatal(err)
		}
		for k := range 3 {
			if _, err := sess.ToolWrite(ctx, fmt.Sprintf("f%d.txt", i), []byte(fmt.Sprint(k, big))); err != nil {
				t.Fatal(err)
			}
		}
		if err := sess.Close(); err != nil {
			t.Fatal(err)
		}
		texts[sess.ID()] = text
	}
	store.Close()
	n := max(killRounds()/2, 10)
	r := rand.New(rand.NewPCG(28, 7))
	steps := 0
	for round := range n {
		w := startWorker(t, retentionWorkerEnv+"=1", "CAIRN_SOAK_HOME="+home, "CAIRN_SOAK_PROJECT="+project,
			fmt.Sprintf("CAIRN_SOAK_SEED=%d", round))
		deadline := time.After(time.Duration(30+r.IntN(400)) * time.Millisecond)
	read:
		for {
			select {
			case _, ok := <-w.lines:
				if !ok {
					break read
				}
				steps++
			case <-deadline:
				break read
			}
		}
		w.kill(t, round, nil)
		checkRetentionRound(t, round, home, project, texts)
	}
	t.Logf("%d rounds, %d steps acknowledged", n, steps)
}

// checkRetentionRound opens the store (which settles the step a kill cut
// short) and checks every promise.
func checkRetentionRound(t *testing.T, round int, home, project string, texts map[string]string) {
	t.Helper()
	ctx := context.Background()
	store, err := engine.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if ents, _ := os.ReadDir(filepath.Join(home, "plans")); len(ents) > 0 {
		t.Fatalf("round %d: plans left after an open: %v", round, ents)
	}
	ws, err := store.Workspace(project)
	if err != nil {
		t.Fatal(err)
	}
	l, problems, err := ws.List(ctx)
	if err != nil || len(problems) > 0 {
		t.Fatalf("round %d: listing: %v %+v", round, err, problems)
	}
	trash, err := store.TrashList(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for id, text := range texts {
		listed := slices.ContainsFunc(l, func(s engine.Summary) bool { return s.ID == id })
		trashed := slices.ContainsFunc(trash, func(x engine.Trashed) bool { return x.Session == id })
		if listed == trashed {
			t.Fatalf("round %d: session %s listed %v, in the trash %v", round, id, listed, trashed)
		}
		if trashed {
			b, err := os.ReadFile(filepath.Join(home, "trash", id, "sessions", id+".items.jsonl"))
			if err != nil || !strings.Contains(string(b), `"kind":"session"`) {
				t.Fatalf("round %d: session %s in the trash without its journal: %v", round, id, err)
			}
			continue
		}
		v, err := ws.Read(ctx, id)
		if err != nil {
			t.Fatalf("round %d: listed session %s does not open: %v", round, id, err)
		}
		items := v.AllItems()
		if len(items) == 0 || items[0].Unavailable != nil || items[0].Text != text {
			t.Fatalf("round %d: session %s lost its conversation", round, id)
		}
	}
	rep, err := store.Fsck(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Problems {
		t.Errorf("round %d: %s: %s", round, p.Path, p.Problem)
	}
}
