package reliability

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cairn/engine"
)

// The kill -9 rounds of migrate-sessions: a worker moves a directory's
// sessions to another directory and back, over and over, until it is
// killed. After each kill the next open of the store finishes or undoes the
// move in flight: every session is whole in exactly one of the two
// directories, fsck finds nothing wrong, and the usage ledger's sums are
// what they were.

const migrateWorkerEnv = "CAIRN_MIGRATE_WORKER"

// migrateWorker moves the sessions of CAIRN_SOAK_A to CAIRN_SOAK_B and back
// until killed, printing a line after each move.
func migrateWorker() error {
	ctx := context.Background()
	a, b := os.Getenv("CAIRN_SOAK_A"), os.Getenv("CAIRN_SOAK_B")
	store, err := engine.Open(os.Getenv("CAIRN_SOAK_HOME")) // recovers what a kill left
	if err != nil {
		return err
	}
	out := bufio.NewWriter(os.Stdout)
	for {
		for _, d := range [][2]string{{a, b}, {b, a}} {
			res, err := store.MigrateSessions(ctx, d[0], d[1], engine.MigrateOptions{})
			if errors.Is(err, engine.ErrNotFound) {
				continue // all on the other side
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "moved %d\n", len(res.Sessions))
			out.Flush()
		}
	}
}

func TestKill9Migrate(t *testing.T) {
	ctx := context.Background()
	home := filepath.Join(t.TempDir(), "home")
	a, b := t.TempDir(), t.TempDir()
	store, err := engine.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("a prompt long enough to be a payload object\n", 600)
	var ids []string
	for i := range 4 {
		ws, err := store.Workspace(a)
		if err != nil {
			t.Fatal(err)
		}
		sess := ws.Create(engine.SessionOptions{})
		if _, err := sess.Append(ctx, engine.Item{Type: engine.User, Text: fmt.Sprint(i, big)}); err != nil {
			t.Fatal(err)
		}
		if _, err := sess.PutOutput(ctx, "grep", strings.NewReader(big)); err != nil {
			t.Fatal(err)
		}
		if err := sess.EndTurn(ctx, engine.Turn{Model: "m", Spend: engine.Spend{CostUSD: 1}}); err != nil {
			t.Fatal(err)
		}
		if err := sess.Close(); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, sess.ID())
	}
	store.Close()
	n := max(killRounds()/2, 10)
	r := rand.New(rand.NewPCG(16, 16))
	moves := 0
	for round := range n {
		w := startWorker(t, migrateWorkerEnv+"=1", "CAIRN_SOAK_HOME="+home, "CAIRN_SOAK_A="+a, "CAIRN_SOAK_B="+b)
		deadline := time.After(time.Duration(50+r.IntN(700)) * time.Millisecond)
	read:
		for {
			select {
			case _, ok := <-w.lines:
				if !ok {
					break read
				}
				moves++
			case <-deadline:
				break read
			}
		}
		w.kill(t, round, nil)
		checkMigrated(t, round, home, a, b, ids)
	}
	t.Logf("%d rounds, %d moves acknowledged", n, moves)
}

// checkMigrated opens the store (which finishes or undoes the move a kill
// cut short) and checks every promise.
func checkMigrated(t *testing.T, round int, home, a, b string, ids []string) {
	t.Helper()
	ctx := context.Background()
	store, err := engine.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if ents, _ := os.ReadDir(filepath.Join(home, "moves")); len(ents) > 0 {
		t.Fatalf("round %d: plans left after an open: %v", round, ents)
	}
	wa, err := store.Workspace(a)
	if err != nil {
		t.Fatal(err)
	}
	wb, err := store.Workspace(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		va, errA := wa.Read(ctx, id)
		vb, errB := wb.Read(ctx, id)
		if (errA == nil) == (errB == nil) {
			t.Fatalf("round %d: session %s in both directories or in neither (%v, %v)", round, id, errA, errB)
		}
		v := va
		if errB == nil {
			v = vb
		}
		items := v.AllItems()
		if len(items) != 1 || items[0].Unavailable != nil || !strings.HasSuffix(items[0].Text, "payload object\n") {
			t.Fatalf("round %d: session %s lost its conversation: %+v", round, id, items)
		}
	}
	rep, err := store.Fsck(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Problems {
		t.Errorf("round %d: %s: %s", round, p.Path, p.Problem)
	}
	sums, err := store.Usage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	total, turns := 0.0, 0
	for _, u := range sums {
		total += u.CostUSD
		turns += u.Turns
	}
	if total != float64(len(ids)) || turns != len(ids) {
		t.Fatalf("round %d: the ledger sums to $%v over %d turns, was $%d over %d", round, total, turns, len(ids), len(ids))
	}
}
