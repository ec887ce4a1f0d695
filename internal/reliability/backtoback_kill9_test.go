package reliability

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"cairn/engine"
)

// Back-to-back tool writes under kill -9: the worker writes files one after
// the other in turns (one file twice in a row, two files of one folder, a
// file of another folder), each write's change line synced while the
// folder sync of the write before it is under way, and ends each turn with
// Commit. It prints "begin" before each write and "ack" with the write's
// snapshot after it. The test kills it at a random moment and checks: each
// file holds its last acknowledged write, or the write under way when it
// was that file's; the session, opened again, lists as its newest applied
// changes the acknowledged writes, and the write under way only when its
// file holds it; undoing the newest change puts back what its file held
// before it, and redoing it puts it back again.

const b2bWorkerEnv = "CAIRN_B2B_WORKER"

// b2bPaths are the files of one turn, in order.
var b2bPaths = []string{"src/a.txt", "src/a.txt", "src/b.txt", "lib/c.txt", "src/a.txt"}

// b2bContent is write i of turn of the worker of round: about 10 KiB, so
// its pre-image is inline in the change line.
func b2bContent(round, turn, i int) string {
	return strings.Repeat(fmt.Sprintf("round %d turn %d write %d\n", round, turn, i), 400)
}

// b2bWorker runs until killed, on the session CAIRN_B2B_SESSION names (or
// a new one, whose id it prints first).
func b2bWorker() error {
	ctx := context.Background()
	seed, ws, err := soakWorkspace()
	if err != nil {
		return err
	}
	var sess *engine.Session
	if id := os.Getenv("CAIRN_B2B_SESSION"); id != "" {
		if sess, err = ws.Open(ctx, id, engine.SessionOptions{}); err != nil {
			return err
		}
	} else {
		sess = ws.Create(engine.SessionOptions{})
		if _, err := sess.Append(ctx, engine.Item{Type: engine.User, Text: "write the files"}); err != nil {
			return err
		}
		if err := sess.Commit(ctx); err != nil {
			return err
		}
		fmt.Printf("session %s\n", sess.ID())
	}
	for turn := 0; ; turn++ {
		for i, p := range b2bPaths {
			fmt.Printf("begin %d %d\n", turn, i)
			ans, err := sess.ToolWrite(ctx, p, []byte(b2bContent(int(seed), turn, i)))
			if err != nil {
				return err
			}
			if ans.Snapshot == nil {
				return errors.New("a write took no snapshot")
			}
			fmt.Printf("ack %d %d %s\n", turn, i, *ans.Snapshot)
		}
		if err := sess.Commit(ctx); err != nil {
			return err
		}
	}
}

// b2bWrite is one write the test knows of.
type b2bWrite struct {
	path, content, snap string
}

func TestBackToBackToolWritesKill9(t *testing.T) {
	ctx := context.Background()
	home := filepath.Join(t.TempDir(), "home")
	project := t.TempDir()
	r := rand.New(rand.NewPCG(19, 1))
	var made []b2bWrite // every write made, oldest first
	id := ""
	lost := 0 // rounds whose write under way was not made
	for round := range killRounds() {
		env := []string{b2bWorkerEnv + "=1", "CAIRN_SOAK_HOME=" + home, "CAIRN_SOAK_PROJECT=" + project,
			fmt.Sprintf("CAIRN_SOAK_SEED=%d", round)}
		if id != "" {
			env = append(env, "CAIRN_B2B_SESSION="+id)
		}
		w := startWorker(t, env...)
		var under *b2bWrite // begun, not acknowledged
		line := func(l string) {
			f := strings.Fields(l)
			switch f[0] {
			case "session":
				id = f[1]
			case "begin":
				turn, _ := strconv.Atoi(f[1])
				i, _ := strconv.Atoi(f[2])
				under = &b2bWrite{path: b2bPaths[i], content: b2bContent(round, turn, i)}
			case "ack":
				under.snap = f[3]
				made = append(made, *under)
				under = nil
			}
		}
		deadline := time.After(time.Duration(20+r.IntN(200)) * time.Millisecond)
	read:
		for {
			select {
			case l, ok := <-w.lines:
				if !ok {
					break read
				}
				line(l)
			case <-deadline:
				break read
			}
		}
		w.kill(t, round, line)
		if id == "" {
			continue // killed before its session was made
		}
		// The files: each as its last write made, or the write under way.
		held := func(p string) string {
			for i := len(made) - 1; i >= 0; i-- {
				if made[i].path == p {
					return made[i].content
				}
			}
			return ""
		}
		read := func(p string) string {
			b, err := os.ReadFile(filepath.Join(project, filepath.FromSlash(p)))
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				t.Fatal(err)
			}
			return string(b)
		}
		for _, p := range []string{"src/a.txt", "src/b.txt", "lib/c.txt"} {
			got := read(p)
			switch {
			case under != nil && p == under.path && got == under.content:
			case got != held(p):
				t.Fatalf("round %d: %s holds %d bytes, neither its last acknowledged write nor the one under way", round, p, len(got))
			}
		}
		underMade := under != nil && read(under.path) == under.content
		if under != nil && !underMade {
			lost++
		}

		store, err := engine.Open(home)
		if err != nil {
			t.Fatal(err)
		}
		ws, err := store.Workspace(project)
		if err != nil {
			t.Fatal(err)
		}
		sess, err := ws.Open(ctx, id, engine.SessionOptions{})
		if err != nil {
			t.Fatalf("round %d: open: %v", round, err)
		}
		l, err := sess.Snapshots(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var applied []string
		for _, s := range l.Snapshots {
			if s.Applied {
				applied = append(applied, s.ID)
			}
		}
		if underMade {
			if len(applied) == 0 {
				t.Fatalf("round %d: the write under way was made, and the session lists no change", round)
			}
			under.snap = applied[len(applied)-1]
			made = append(made, *under)
		}
		if len(made) > 0 {
			// The newest listed changes are the newest writes made.
			for k := 1; k <= min(2, len(made), len(applied)); k++ {
				if got, want := applied[len(applied)-k], made[len(made)-k].snap; got != want {
					t.Fatalf("round %d: the %d-th newest change listed is %s, want %s (write under way made: %v)", round, k, got, want, underMade)
				}
			}
			newest := made[len(made)-1]
			before := ""
			for i := len(made) - 2; i >= 0; i-- {
				if made[i].path == newest.path {
					before = made[i].content
					break
				}
			}
			if _, err := sess.Undo(ctx); err != nil {
				t.Fatalf("round %d: undo: %v", round, err)
			}
			if got := read(newest.path); got != before {
				t.Fatalf("round %d: undoing the newest write left %s with %d bytes, not what was there before it", round, newest.path, len(got))
			}
			if _, err := sess.Redo(ctx); err != nil {
				t.Fatalf("round %d: redo: %v", round, err)
			}
			if got := read(newest.path); got != newest.content {
				t.Fatalf("round %d: redo left %s with %d bytes, not the newest write", round, newest.path, len(got))
			}
		}
		sess.Close()
		store.Close()
	}
	t.Logf("rounds: %d, writes made: %d, rounds whose write under way was not made: %d", killRounds(), len(made), lost)
}
