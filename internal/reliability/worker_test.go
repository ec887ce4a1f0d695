package reliability

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
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
