package reliability

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"cairn/engine"
	"cairn/internal/vfs"
)

// User files beside cairn's temps: a person's files whose names look like
// temp files sit beside the files a tool writes, while a child process
// writing those files is killed again and again, leaving real temp files.
// After each kill, an open of a session of the workspace (the killed one,
// or another) collects cairn's leftovers; the person's files are all still
// there, byte for byte.

const tempsWorkerEnv = "CAIRN_TEMPS_WORKER"

// tempsTargets are the files the worker's tools write, in three folders.
var tempsTargets = []string{"f.txt", "sub/g.txt", "sub/deeper/h.bin"}

// userLookalikes are names people give their own files beside base.
func userLookalikes(base string) []string {
	return []string{
		"." + base + ".tmpl", "." + base + ".tmp", "." + base + ".tmp123", "." + base + ".tmpabc",
		"." + base + ".tmp1bil2dna3mar", "." + base + ".tmp-1-abc", "." + base + ".swp", base + "~", base + ".tmp",
		"." + base + "." + strconv.Itoa(os.Getpid()) + "-0123456789abcde" + vfs.TempSuffix, // one hex digit short
		"." + base + ".12-0123456789abcdef" + vfs.TempSuffix + ".bak",
	}
}

// tempsWorker writes the targets with contents of a few MiB, undoes and
// redoes, acknowledging each operation, until it is killed. A new session
// first writes every target ("warm"), so a kill can land before the first
// change line of a folder: the owner's hint names the folder first.
func tempsWorker() error {
	ctx := context.Background()
	seed, _ := strconv.ParseUint(os.Getenv("CAIRN_TEMPS_SEED"), 10, 64)
	r := rand.New(rand.NewPCG(seed, 3))
	store, err := engine.Open(os.Getenv("CAIRN_TEMPS_HOME"))
	if err != nil {
		return err
	}
	ws, err := store.Workspace(os.Getenv("CAIRN_TEMPS_PROJECT"))
	if err != nil {
		return err
	}
	sess := ws.Create(engine.SessionOptions{})
	if os.Getenv("CAIRN_TEMPS_NEW") == "" {
		if id, err := ws.Latest(ctx); err == nil {
			if sess, err = ws.Open(ctx, id, engine.SessionOptions{}); err != nil {
				return err
			}
		}
	}
	for _, f := range tempsTargets {
		if _, err := sess.ToolWrite(ctx, f, []byte("warm "+f)); err != nil {
			return err
		}
	}
	fmt.Println("ack warm")
	for i := 0; ; i++ {
		if r.IntN(4) == 0 {
			sess.Undo(ctx)
			sess.Redo(ctx)
			fmt.Println("ack undo-redo")
			continue
		}
		f := tempsTargets[r.IntN(len(tempsTargets))]
		content := strings.Repeat(fmt.Sprintf("%d-%d %s\n", seed, i, f), (1<<20+r.IntN(3<<20))/32)
		if _, err := sess.ToolWrite(ctx, f, []byte(content)); err != nil {
			return err
		}
		fmt.Println("ack write", f)
	}
}

func TestUserFilesBesideTemps(t *testing.T) {
	ctx := context.Background()
	home := filepath.Join(t.TempDir(), "home")
	project := t.TempDir()
	r := rand.New(rand.NewPCG(7, 7))

	// The person's files, with contents of their own, and a temp of a live
	// cairn process (the test's parent: alive for the whole test).
	user := map[string]string{}
	for _, f := range tempsTargets {
		dir, base := path.Split(f)
		for _, n := range userLookalikes(base) {
			user[dir+n] = fmt.Sprintf("the user's %s %x\n", n, r.Uint64())
		}
		user[dir+"."+base+"."+strconv.Itoa(os.Getppid())+"-0123456789abcdef"+vfs.TempSuffix] = "a live writer's temp\n"
	}
	for n, c := range user {
		p := filepath.Join(project, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o600); err != nil {
			t.Fatal(err)
		}
		// Old files: no age makes a file cairn's.
		old := time.Now().Add(-48 * time.Hour)
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}

	rounds := max(killRounds()/2, 8)
	left := 0 // temps a kill left, seen before the next open
	for round := range rounds {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), tempsWorkerEnv+"=1", "CAIRN_TEMPS_HOME="+home, "CAIRN_TEMPS_PROJECT="+project,
			fmt.Sprintf("CAIRN_TEMPS_SEED=%d", round))
		if round%3 == 2 {
			cmd.Env = append(cmd.Env, "CAIRN_TEMPS_NEW=1")
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() {
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
			}
		}()
		time.Sleep(time.Duration(20+r.IntN(400)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			t.Fatalf("round %d: the worker ended by itself: %s", round, stderr.String())
		}
		worker := cmd.Process.Pid
		left += len(cairnTemps(t, project, func(pid int) bool { return pid == worker }))

		// The next open: of the killed session itself, or of another one.
		store, err := engine.Open(home)
		if err != nil {
			t.Fatal(err)
		}
		ws, err := store.Workspace(project)
		if err != nil {
			t.Fatal(err)
		}
		var id string
		if round%2 == 0 {
			if id, err = ws.Latest(ctx); err != nil && !errors.Is(err, engine.ErrNotFound) {
				t.Fatal(err)
			}
		}
		if id == "" { // another session (or the first, if the kill came before any)
			s := ws.Create(engine.SessionOptions{})
			if _, err := s.Append(ctx, engine.Item{Type: engine.User, Text: "another session"}); err != nil {
				t.Fatal(err)
			}
			id = s.ID()
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		}
		s, err := ws.Open(ctx, id, engine.SessionOptions{})
		if err != nil {
			t.Fatalf("round %d: open after the kill: %v", round, err)
		}
		s.Close()
		store.Close()

		for n, c := range user {
			b, err := os.ReadFile(filepath.Join(project, filepath.FromSlash(n)))
			if err != nil || string(b) != c {
				t.Fatalf("round %d: the user's %s: %q %v", round, n, b, err)
			}
		}
		if l := cairnTemps(t, project, func(pid int) bool { return pid != os.Getppid() }); len(l) > 0 {
			t.Fatalf("round %d: cairn's temp files left after the next open: %v", round, l)
		}
	}
	t.Logf("rounds: %d, temp files the kills left and the next opens collected: %d", rounds, left)
}

// cairnTemps lists the temp files in project whose pid is one of pids.
func cairnTemps(t *testing.T, project string, pids func(int) bool) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(project, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if pid, ok := vfs.TempPID(d.Name()); ok && pids(pid) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
