package bgwork

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"cairn/internal/vfs"
)

// The kill -9 test runs this test binary again as a worker (TestMain
// picks it by its environment) that runs background work on a real disk
// and delivers it as it settles, until it is SIGKILLed at a random moment.

var killRounds = flag.Int("kill-rounds", 6, "kill -9 rounds of TestKill9DeliversOnce")

const workerEnv = "BGWORK_KILL9_DIR"

func TestMain(m *testing.M) {
	if dir := os.Getenv(workerEnv); dir != "" {
		if err := kill9Worker(dir, os.Getenv("BGWORK_KILL9_ROUND")); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// sinkName is the conversation file of owner: the session's, or a child's.
func sinkName(owner string) string {
	if owner == "" {
		return "items.jsonl"
	}
	return owner + ".items.jsonl"
}

// sinks opens each owner's sink once.
type sinks struct {
	mu   sync.Mutex
	fsys vfs.FS
	by   map[string]*fileSink
}

func (s *sinks) get(owner string) (*fileSink, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if k := s.by[owner]; k != nil {
		return k, nil
	}
	k, err := tryOpenSink(s.fsys, sinkName(owner))
	if err == nil {
		s.by[owner] = k
	}
	return k, err
}

// kill9Worker opens the ledger (recovering it), delivers what is owed,
// then starts background tasks, some with a shell job of their own and a
// report, forever, delivering each result from the Settled hook.
func kill9Worker(dir, round string) error {
	ctx := context.Background()
	fsys, err := vfs.OpenDisk(dir)
	if err != nil {
		return err
	}
	l, _, err := Open(fsys, ledgerName, Options{MaxLive: 6})
	if err != nil {
		return err
	}
	sk := &sinks{fsys: fsys, by: map[string]*fileSink{}}
	deliver := func(owner string) {
		if k, err := sk.get(owner); err == nil {
			l.Deliver(ctx, owner, k)
		}
	}
	for _, o := range l.State().Owners() {
		deliver(o)
	}
	r := NewRunner(l, RunnerOptions{Settled: func(w Work, d *Delivery) {
		if d != nil {
			deliver(d.Owner)
		}
	}})
	fmt.Println("ready")
	rnd := rand.New(rand.NewPCG(uint64(os.Getpid()), 1))
	for i := 0; ; i++ {
		id := fmt.Sprintf("r%s-t%d", round, i)
		withJob, report := rnd.IntN(3) == 0, rnd.IntN(4) == 0
		fn := func(ctx context.Context) Result {
			if report {
				r.Report(id, ReportInput{Message: "progress on " + id})
			}
			if withJob {
				job := id + "-job"
				c, err := r.Start(Admission{ID: job, Type: TypeShell, Owner: id, Background: true}, 0, func(context.Context) Result {
					return Result{Text: "exit 0"}
				})
				if err == nil {
					<-c.r.waitDone(job)
				}
			}
			return Result{Text: "done " + id}
		}
		if _, err := r.Start(Admission{ID: id, Type: TypeTask, Background: true}, 0, fn); err != nil {
			time.Sleep(200 * time.Microsecond) // no room: let some settle
		}
	}
}

// waitDone is closed once work id no longer runs here.
func (r *Runner) waitDone(id string) <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ru := r.runs[id]; ru != nil {
		return ru.done
	}
	c := make(chan struct{})
	close(c)
	return c
}

// TestKill9DeliversOnce SIGKILLs the worker at random moments, round after
// round on the same files; after each, a new owner recovers the ledger
// and delivers what is owed, and every owner holds each of its
// deliveries exactly once, in the order the ledger recorded them.
func TestKill9DeliversOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("kill -9 rounds")
	}
	dir := t.TempDir()
	fsys, err := vfs.OpenDisk(dir)
	if err != nil {
		t.Fatal(err)
	}
	rnd := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 3))
	delivered := 0
	for round := 1; round <= *killRounds; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), workerEnv+"="+dir, "BGWORK_KILL9_ROUND="+strconv.Itoa(round))
		var stderr safeBuffer
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		if !sc.Scan() || sc.Text() != "ready" {
			cmd.Wait()
			t.Fatalf("round %d: the worker did not start: %s", round, stderr.String())
		}
		time.Sleep(time.Duration(10+rnd.IntN(120)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			t.Fatalf("round %d: the worker ended by itself: %s", round, stderr.String())
		}
		delivered = checkDeliveredOnce(t, fsys, round)
	}
	if delivered < *killRounds {
		t.Fatalf("only %d deliveries in %d rounds: the worker did too little to test", delivered, *killRounds)
	}
	t.Logf("%d deliveries over %d rounds", delivered, *killRounds)
}

// checkDeliveredOnce recovers the ledger, delivers what is owed, and
// holds every owner's items to the ledger's deliveries; it returns how
// many deliveries there are.
func checkDeliveredOnce(t *testing.T, fsys vfs.FS, round int) int {
	t.Helper()
	ctx := context.Background()
	l, _, err := Open(fsys, ledgerName, Options{})
	if err != nil {
		t.Fatalf("round %d: %v", round, err)
	}
	defer l.Close()
	for _, o := range l.State().Owners() {
		k, err := tryOpenSink(fsys, sinkName(o))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Deliver(ctx, o, k); err != nil {
			t.Fatalf("round %d: deliver to %q: %v", round, o, err)
		}
		k.Close()
	}
	st := l.State()
	if st.Skipped != 0 {
		t.Fatalf("round %d: %d lines skipped", round, st.Skipped)
	}
	want := map[string][]string{}
	for _, d := range st.deliveries {
		if !d.Delivered {
			t.Fatalf("round %d: %s still owed", round, d.Item)
		}
		want[d.Owner] = append(want[d.Owner], d.Item)
	}
	for owner, items := range want {
		held, err := readSink(fsys, sinkName(owner))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range held {
			got = append(got, it.ID)
		}
		if fmt.Sprint(got) != fmt.Sprint(items) {
			t.Fatalf("round %d: owner %q holds %d items %v,\nthe ledger delivered %d %v (once each, in order)", round, owner, len(got), got, len(items), items)
		}
	}
	for _, w := range st.Works() {
		if w.Live() {
			t.Fatalf("round %d: %s is %s after recovery", round, w.ID, w.State)
		}
	}
	return len(st.deliveries)
}

// safeBuffer is a strings.Builder for a child's stderr.
type safeBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (s *safeBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b = append(s.b, p...)
	return len(p), nil
}

func (s *safeBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return string(s.b)
}
