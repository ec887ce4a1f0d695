package reliability

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cairn/engine"
	"cairn/internal/vfs"
	"cairn/journal"
)

// The kill -9 soak: this test binary re-runs itself as a worker (see
// TestMain) that does random operations on one session and prints an "ack"
// line after each one returns. The test SIGKILLs it at a random moment and
// checks that everything acknowledged is on disk and every file is whole.

const workerEnv = "CAIRN_SOAK_WORKER"

func TestMain(m *testing.M) {
	if os.Getenv(openerEnv) != "" {
		os.Exit(openWorker())
	}
	if os.Getenv(payloadEnv) != "" {
		os.Exit(payloadWorker())
	}
	if os.Getenv(cliWorkerEnv) != "" {
		os.Exit(cliWorker())
	}
	// The kill -9 workers run until killed; an error ends them with 1.
	for _, w := range []struct {
		env string
		run func() error
	}{
		{taskWorkerEnv, taskWorker},
		{orphanWorkerEnv, orphanWorker},
		{tempsWorkerEnv, tempsWorker},
		{migrateWorkerEnv, migrateWorker},
		{execWorkerEnv, execWorker},
		{b2bWorkerEnv, b2bWorker},
		{hookExecWorkerEnv, hookExecWorker},
		{workerEnv, soakWorker},
	} {
		if os.Getenv(w.env) != "" {
			if err := w.run(); err != nil {
				fmt.Fprintln(os.Stderr, "worker:", err)
				os.Exit(1)
			}
			os.Exit(0)
		}
	}
	os.Exit(m.Run())
}

// soakWorker runs until killed: prompts and turns, tool writes, undo, redo,
// forks and conversation reverts on the directory's latest session.
func soakWorker() error {
	ctx := context.Background()
	seed, ws, err := soakWorkspace()
	if err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(seed, 9))
	sess, _, err := latestSession(ctx, ws)
	if err != nil {
		return err
	}
	out := bufio.NewWriter(os.Stdout)
	ack := func(format string, a ...any) {
		fmt.Fprintf(out, "ack "+format+"\n", a...)
		out.Flush()
	}
	for i := 0; ; i++ {
		switch op := r.IntN(10); {
		case op < 4:
			p := fmt.Sprintf("prompt %d-%d", seed, i)
			// Mostly small answers, one in eight big enough to be stored
			// as an object: the state stays small enough for hundreds of
			// rounds, each of which checks all of it.
			reps := 1 + r.IntN(200)
			if r.IntN(8) == 0 {
				reps = 1500 + r.IntN(1500)
			}
			a := strings.Repeat(fmt.Sprintf("answer %d-%d ", seed, i), reps)
			if _, err := sess.Append(ctx, engine.Item{Type: engine.User, Text: p}); err != nil {
				return err
			}
			if _, err := sess.Append(ctx, engine.Item{Type: engine.Assistant, Text: a}); err != nil {
				return err
			}
			if err := sess.EndTurn(ctx, engine.Turn{Labels: []string{"soak"}}); err != nil {
				return err
			}
			ack("turn %s %s %s", sess.ID(), p, sum(a))
		case op < 7:
			name := fmt.Sprintf("f%d.txt", r.IntN(5))
			content := strings.Repeat(fmt.Sprintf("%d-%d\n", seed, i), 1+r.IntN(2000))
			if _, err := sess.ToolWrite(ctx, name, []byte(content)); err != nil {
				return err
			}
			ack("write %s %s", sess.ID(), name)
		case op < 8:
			if _, err := sess.Undo(ctx); err != nil && !errors.Is(err, engine.ErrRefused) {
				return err
			}
			if _, err := sess.Redo(ctx); err != nil && !errors.Is(err, engine.ErrRefused) {
				return err
			}
			ack("undo-redo %s", sess.ID())
		case op < 9:
			if !sess.Recorded() {
				continue
			}
			res, err := sess.Fork(ctx, "")
			if errors.Is(err, engine.ErrRefused) {
				continue // a revert killed before its unrevert left no head item
			}
			if err != nil {
				return err
			}
			ack("fork %s %s", sess.ID(), res.Session)
		default:
			path := sess.Transcript()
			if len(path) < 2 {
				continue
			}
			if _, err := sess.Revert(ctx, path[len(path)-2].ID, engine.RevertConversation); err != nil {
				return err
			}
			if _, err := sess.Unrevert(ctx); err != nil {
				return err
			}
			ack("revert %s", sess.ID())
		}
	}
}

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}

func TestKill9Soak(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	project := t.TempDir()
	n := killRounds()
	r := rand.New(rand.NewPCG(42, 42))
	turns := map[string]map[string]string{} // session -> prompt -> answer sum
	var forks []string
	acks := 0
	for round := range n {
		w := startWorker(t, workerEnv+"=1", "CAIRN_SOAK_HOME="+home, "CAIRN_SOAK_PROJECT="+project,
			fmt.Sprintf("CAIRN_SOAK_SEED=%d", round))
		touched := map[string]bool{} // the sessions this round acknowledged work in
		deadline := time.After(time.Duration(20+r.IntN(300)) * time.Millisecond)
	read:
		for {
			select {
			case l, ok := <-w.lines:
				if !ok {
					break read
				}
				f := strings.Fields(l)
				acks++
				touched[f[2]] = true
				switch f[1] {
				case "turn":
					if turns[f[2]] == nil {
						turns[f[2]] = map[string]string{}
					}
					turns[f[2]][f[3]+" "+f[4]] = f[5]
				case "fork":
					forks = append(forks, f[3])
					touched[f[3]] = true
				}
			case <-deadline:
				break read
			}
		}
		w.kill(t, round, nil)
		// Every round checks that the sessions open and the acknowledged
		// turns are there; every tenth round, and the last, checks the
		// whole state folder too (fsck verifies every object), so the cost
		// of hundreds of rounds grows with the rounds, not their square.
		checkAfterKill(t, home, project, turns, forks, touched, round%10 == 9 || round == n-1)
	}
	t.Logf("rounds killed: %d, operations acknowledged: %d, sessions: %d, forks: %d", n, acks, len(turns), len(forks))
}

// checkAfterKill verifies the promises (turns, files, objects, lock, temps) after a kill.
func checkAfterKill(t *testing.T, home, project string, turns map[string]map[string]string, forks []string, touched map[string]bool, whole bool) {
	t.Helper()
	ctx := context.Background()
	// Every journal reads up to its last complete line.
	walk := filepath.Walk
	if !whole {
		walk = func(string, filepath.WalkFunc) error { return nil }
	}
	walk(home, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		d, _ := vfs.OpenDisk(filepath.Dir(p))
		defer d.Close()
		if _, err := journal.Read(d, filepath.Base(p), func([]byte) error { return nil }); err != nil {
			t.Fatalf("journal %s: %v", p, err)
		}
		return nil
	})
	store, err := engine.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ws, err := store.Workspace(project)
	if err != nil {
		t.Fatal(err)
	}
	l, _, err := ws.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Every session opens (the lock is free, the record is rebuilt, a torn
	// tail is cut) and holds every acknowledged turn.
	for i, e := range l {
		if !whole && i > 0 && !touched[e.ID] {
			continue // checked in an earlier round, untouched since
		}
		sess, err := ws.Open(ctx, e.ID, engine.SessionOptions{})
		if err != nil {
			t.Fatalf("open %s after kill: %v", e.ID, err)
		}
		got := map[string]string{}
		items := sess.AllItems()
		for i, it := range items {
			if it.Type == engine.User && i+1 < len(items) {
				got[it.Text] = sum(items[i+1].Text)
			}
		}
		for p, a := range turns[e.ID] {
			if got[p] != a {
				t.Fatalf("session %s: acknowledged turn %q lost or changed", e.ID, p)
			}
		}
		sess.Close()
	}
	for id := range turns {
		if !whole && !touched[id] {
			continue
		}
		if _, err := ws.Read(ctx, id); err != nil {
			t.Fatalf("acknowledged session %s: %v", id, err)
		}
	}
	for _, id := range forks {
		if !whole && !touched[id] {
			continue
		}
		if _, err := ws.Read(ctx, id); err != nil {
			t.Fatalf("acknowledged fork %s: %v", id, err)
		}
	}
	if !whole {
		return
	}
	// Every object a journal names exists and hashes to its name; records
	// parse; nothing is wrong.
	rep, err := store.Fsck(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Problems {
		t.Errorf("after kill: %s: %s", p.Path, p.Problem)
	}
	// Temp files are gone after the next open.
	filepath.Walk(filepath.Join(home, "workspaces"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && strings.HasPrefix(fi.Name(), ".") {
			t.Errorf("temp file left after the next open: %s", p)
		}
		return nil
	})
	if t.Failed() {
		t.FailNow()
	}
	_ = io.EOF
}
