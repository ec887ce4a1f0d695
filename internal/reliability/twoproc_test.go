package reliability

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"cairn/engine"
	"cairn/internal/vfs"
	"cairn/journal"
)

const openerEnv = "CAIRN_OPEN_WORKER"

// openWorker tries to take ownership of a session, says whether it won,
// holds it until its stdin closes, and exits.
func openWorker() int {
	ctx := context.Background()
	store, err := engine.Open(os.Getenv("CAIRN_SOAK_HOME"))
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	ws, _ := store.Workspace(os.Getenv("CAIRN_SOAK_PROJECT"))
	<-waitFile(os.Getenv("CAIRN_GO"))
	s, err := ws.Open(ctx, os.Getenv("CAIRN_SESSION"), engine.SessionOptions{})
	var busy *engine.BusyError
	switch {
	case err == nil:
		fmt.Println("won")
		bufio.NewReader(os.Stdin).ReadString('\n')
		s.Close()
	case errors.As(err, &busy):
		fmt.Println("busy", busy.PID)
	default:
		fmt.Println("error", err)
	}
	return 0
}

// waitFile is closed once path exists: both racers start at once.
func waitFile(path string) <-chan struct{} {
	c := make(chan struct{})
	go func() {
		for {
			if _, err := os.Stat(path); err == nil {
				close(c)
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	return c
}

// TestOwnershipRace: two processes open one session at the same moment;
// exactly one wins and the other is told the winner's pid.
func TestOwnershipRace(t *testing.T) {
	ctx := context.Background()
	home := filepath.Join(t.TempDir(), "home")
	project := t.TempDir()
	store, err := engine.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	ws, _ := store.Workspace(project)
	s := ws.Create(engine.SessionOptions{})
	s.Append(ctx, engine.Item{Type: engine.User, Text: "shared"})
	s.Close()
	store.Close()
	n := 10
	if *long {
		n = 100
	}
	for round := range n {
		gate := filepath.Join(t.TempDir(), "go")
		type racer struct {
			cmd   *exec.Cmd
			out   *bufio.Reader
			stdin interface{ Close() error }
		}
		var rs []racer
		for range 2 {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), openerEnv+"=1", "CAIRN_SOAK_HOME="+home, "CAIRN_SOAK_PROJECT="+project,
				"CAIRN_SESSION="+s.ID(), "CAIRN_GO="+gate)
			stdin, _ := cmd.StdinPipe()
			stdout, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			rs = append(rs, racer{cmd, bufio.NewReader(stdout), stdin})
		}
		os.WriteFile(gate, nil, 0o600)
		var answers []string
		for _, r := range rs {
			line, _ := r.out.ReadString('\n')
			answers = append(answers, strings.TrimSpace(line))
		}
		won, busy := 0, 0
		for i, a := range answers {
			switch {
			case a == "won":
				won++
			case strings.HasPrefix(a, "busy "):
				busy++
				if a != fmt.Sprintf("busy %d", rs[1-i].cmd.Process.Pid) {
					t.Errorf("round %d: the loser names %q, the winner is pid %d", round, a, rs[1-i].cmd.Process.Pid)
				}
			default:
				t.Errorf("round %d: %q", round, a)
			}
		}
		for _, r := range rs {
			r.stdin.Close()
			r.cmd.Wait()
		}
		if won != 1 || busy != 1 {
			t.Fatalf("round %d: %d won and %d were busy: %q", round, won, busy, answers)
		}
	}
}

// TestReaderWhileWriterAppends: a listing and a reader running while another
// process writes turns never see half a line and never fail.
func TestReaderWhileWriterAppends(t *testing.T) {
	ctx := context.Background()
	home := filepath.Join(t.TempDir(), "home")
	project := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), workerEnv+"=1", "CAIRN_SOAK_HOME="+home, "CAIRN_SOAK_PROJECT="+project, "CAIRN_SOAK_SEED=7")
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
	}()
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() { // the first acknowledged operation: the session exists
		t.Fatal("the writer acknowledged nothing")
	}
	go func() {
		for sc.Scan() {
		}
	}()
	store, err := engine.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ws, _ := store.Workspace(project)
	reads, lines := 0, 0
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		l, problems, err := ws.List(ctx)
		if err != nil || len(problems) > 0 {
			t.Fatalf("listing while a writer appends: %v %+v", err, problems)
		}
		for _, e := range l {
			if _, err := ws.Read(ctx, e.ID); err != nil {
				t.Fatalf("reading %s while it is written: %v", e.ID, err)
			}
			d, _ := vfs.OpenDisk(filepath.Join(ws.Folder(), "sessions"))
			st, err := journal.Read(d, e.ID+".items.jsonl", func([]byte) error { return nil })
			d.Close()
			if err != nil || len(st.Bad) > 0 {
				t.Fatalf("a reader saw a bad line while the writer appends: %v %+v", err, st.Bad)
			}
			lines += st.Lines
			reads++
		}
	}
	if reads == 0 {
		t.Fatal("nothing was read")
	}
	t.Logf("%d reads of %d lines while the writer appended", reads, lines)
}
