package reliability

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"cairn/engine"
)

// worker is this test binary run again as a kill -9 worker (TestMain
// picks the worker by its environment variable): each line it prints
// arrives on lines, which closes when it dies.
type worker struct {
	cmd    *exec.Cmd
	lines  chan string
	stderr strings.Builder
}

// startWorker starts a worker with env added to the test's environment.
func startWorker(t *testing.T, env ...string) *worker {
	t.Helper()
	w := &worker{cmd: exec.Command(os.Args[0], "-test.run=^$"), lines: make(chan string)}
	w.cmd.Env = append(os.Environ(), env...)
	stdout, err := w.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	w.cmd.Stderr = &w.stderr
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			w.lines <- sc.Text()
		}
		close(w.lines)
	}()
	return w
}

// kill SIGKILLs the worker, hands each line still in the pipe (printed
// before the kill) to each when it is not nil, and fails the test unless
// the kill is what ended the worker.
func (w *worker) kill(t *testing.T, round int, each func(string)) {
	t.Helper()
	w.cmd.Process.Signal(syscall.SIGKILL)
	for l := range w.lines {
		if each != nil {
			each(l)
		}
	}
	err := w.cmd.Wait()
	if ws, ok := w.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
		t.Fatalf("round %d: the worker ended by itself (%v): %s", round, err, w.stderr.String())
	}
}

// soakWorkspace is the worker side: the seed, store home and project a
// kill -9 worker is given (CAIRN_SOAK_SEED, _HOME, _PROJECT), opened.
func soakWorkspace() (uint64, *engine.Workspace, error) {
	seed, _ := strconv.ParseUint(os.Getenv("CAIRN_SOAK_SEED"), 10, 64)
	store, err := engine.Open(os.Getenv("CAIRN_SOAK_HOME"))
	if err != nil {
		return 0, nil, err
	}
	ws, err := store.Workspace(os.Getenv("CAIRN_SOAK_PROJECT"))
	return seed, ws, err
}

// latestSession opens the workspace's latest session, the one an earlier
// worker was killed in, or creates one when there is none yet (then created).
func latestSession(ctx context.Context, ws *engine.Workspace) (sess *engine.Session, created bool, err error) {
	if id, err := ws.Latest(ctx); err == nil {
		sess, err := ws.Open(ctx, id, engine.SessionOptions{})
		return sess, false, err
	}
	return ws.Create(engine.SessionOptions{}), true, nil
}
