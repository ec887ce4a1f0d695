package cli

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"cairn/remotews"
)

// waitGone waits until the host has let go of every linger socket of
// the workspace: the processes that lingered for background jobs have
// closed their host sessions (the next open takes the flock after them).
func (e *sshEnv) waitGone(t *testing.T) {
	t.Helper()
	for {
		socks, _ := filepath.Glob(filepath.Join(e.hostHome, "hosted", "*.calls", "*.sock"))
		if len(socks) == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitFile waits until the host's workspace holds name.
func (e *sshEnv) waitFile(name string) {
	for e.read(name) == "<absent>" {
		time.Sleep(20 * time.Millisecond)
	}
}

// A background job through the real sshd outlives its client (the REPL
// ends, its ssh connection with it): the host's cairn lingers for it,
// and the next resume learns its outcome and delivers it, once. (A
// connection killed under a job: TestSSHKilledMidShellStart.) A second job is cancelled
// from the client: stopped on the host, its end delivered cancelled.
func TestSSHBackgroundJobOutlivesConnection(t *testing.T) {
	e := newSSHEnv(t)
	run := e.client(t, "--ssh-command", e.sshCmd, "--cairn-path", e.cairnPath)
	tgt := e.srv.Target() + ":" + e.ws
	code, out, errs := run("the first prompt\n:exec --timeout 121 until [ -e go ]; do sleep 0.05; done; echo done > bg.txt\n/exit\n", "--ssh", tgt)
	if code != 0 || !strings.Contains(out, "Running in the background on "+e.srv.Target()+" as shell ") ||
		!strings.Contains(out, "goes on there") {
		t.Fatalf("the session whose connection is killed: %d\n%s\n%s", code, out, errs)
	}
	id := out[strings.LastIndex(out, "cairn --resume ")+len("cairn --resume ") : len(out)-1]
	// The job runs on after the connection's end; let it finish.
	if err := os.WriteFile(filepath.Join(e.ws, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	e.waitFile("bg.txt")
	code, out, errs = run("/exit\n", "-r", id)
	want := "background: shell succeeded: exit 0"
	if code != 0 || strings.Count(out, want) != 1 || !strings.Contains(out, "(on "+e.srv.Target()+")") {
		t.Fatalf("the resume after the job ended: %d\n%s\n%s", code, out, errs)
	}
	code, out, _ = run("/exit\n", "-r", id)
	if code != 0 || strings.Contains(out, want) {
		t.Fatalf("delivered again: %d\n%s", code, out)
	}

	// A cancel from the client stops the job on the host.
	code, out, errs = run(":exec --timeout 600 sleep 600; touch late.txt\n/shells stop shell-2\n/exit\n", "-r", id)
	if code != 0 || !strings.Contains(out, "shell-2 cancelling; its end is reported here.") {
		t.Fatalf("cancel: %d\n%s\n%s", code, out, errs)
	}
	e.waitGone(t)
	// Its end, cancelled, shown in that REPL or at the next connect: once.
	code2, out2, errs := run("/exit\n", "-r", id)
	if code2 != 0 || strings.Count(out+out2, "background: shell-2 cancelled: ") != 1 || e.read("late.txt") != "<absent>" {
		t.Fatalf("after the cancel: %d\n%s\n%s\n%s", code2, out, out2, errs)
	}
	e.waitGone(t)
}

// shell.start through the real sshd, its connection killed at a random
// moment: at the next connect, jobs.list tells the job if and only if
// it started on the host (its shell history has its line), and a start
// whose answer arrived is always told. A job told runs to its end.
func TestSSHKilledMidShellStart(t *testing.T) {
	e := newSSHEnv(t)
	ctx := context.Background()
	sid := uuid.NewString()
	var binding remotews.Binding
	rng := rand.New(rand.NewPCG(3, uint64(time.Now().UnixNano())))
	started, lost := 0, 0
	for round := range *sshRounds {
		c := e.mustDial()
		if round == 0 {
			binding = c.Binding()
		}
		s, err := c.Session(ctx, sid, binding, false)
		if err != nil {
			t.Fatalf("round %d: open: %v", round, err)
		}
		job := fmt.Sprintf("job-%d", round)
		delay := time.Duration(rng.IntN(40)) * time.Millisecond
		go func() {
			time.Sleep(delay)
			e.killSSH()
		}()
		_, serr := s.ShellStart(ctx, "", "", job, "echo "+job+" > "+job+".txt", 60)
		if serr != nil && !errors.Is(serr, remotews.ErrLost) {
			t.Fatalf("round %d: %v", round, serr)
		}
		<-c.Done()
		c.Close()

		c = e.mustDial()
		s, err = c.Session(ctx, sid, binding, false)
		if err != nil {
			t.Fatalf("round %d: reopen: %v", round, err)
		}
		jobs, err := s.Jobs(ctx, []string{job})
		if err != nil {
			t.Fatal(err)
		}
		hist, err := s.Shells(ctx)
		if err != nil {
			t.Fatal(err)
		}
		inHistory := false
		for _, h := range hist {
			if strings.Contains(h.Cmd, job+".txt") {
				inHistory = true
			}
		}
		switch {
		case serr == nil && len(jobs) != 1:
			t.Fatalf("round %d: the start was answered, but the host does not tell the job: %+v", round, jobs)
		case len(jobs) == 1 && !inHistory:
			t.Fatalf("round %d: the host tells %+v, but its shell history lacks it", round, jobs[0])
		case len(jobs) == 0 && inHistory:
			t.Fatalf("round %d: the job is in the shell history, and the host does not tell it", round)
		case len(jobs) == 1:
			started++
			e.waitFile(job + ".txt")
		default:
			lost++
		}
		if err := s.Close(ctx); err != nil {
			t.Fatal(err)
		}
		c.Close()
	}
	e.waitGone(t)
	t.Logf("%d rounds: %d jobs started, %d starts lost before the host took them", *sshRounds, started, lost)
}
