package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// startREPL starts a REPL on a new session, gives it three prompts and
// waits until it has taken them; it returns the running process.
func (e *procEnv) startREPL(t *testing.T) (*exec.Cmd, string) {
	t.Helper()
	cmd := e.command()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	lines := startLines(t, cmd)
	io.WriteString(stdin, "one\ntwo\nthree\n/history\n")
	waitLine(t, lines, "3  three") // the history is printed after the three prompts
	for _, s := range e.sessions(t) {
		if s.OwnerPID != nil && *s.OwnerPID == cmd.Process.Pid {
			return cmd, s.ID
		}
	}
	t.Fatalf("no session owned by the REPL: %+v", e.sessions(t))
	return nil, ""
}

// record reads session id's record straight from disk.
func (e *procEnv) record(t *testing.T, id string) (items int, covered, journal int64) {
	t.Helper()
	var loc struct {
		Folder string `json:"folder"`
	}
	if err := json.Unmarshal([]byte(e.mustRun(t, "where", "--json")), &loc); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(loc.Folder, "sessions", id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Counts   struct{ Items int }
		Journals map[string]int64
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(loc.Folder, "sessions", id+".items.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return r.Counts.Items, r.Journals["items"], fi.Size()
}

// TestProcessSignalWritesRecord: a REPL told to end by SIGTERM or SIGHUP
// closes its session first: its record, read straight from disk, holds
// every prompt and covers the whole journal, and it exits 128+signal.
func TestProcessSignalWritesRecord(t *testing.T) {
	e := newProcEnv(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		cmd, id := e.startREPL(t)
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		err := waitProcess(t, cmd)
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 128+int(sig) {
			t.Fatalf("%v: exit %v, want %d", sig, err, 128+int(sig))
		}
		if items, covered, size := e.record(t, id); items != 3 || covered != size {
			t.Fatalf("%v: the record says %d items and covers %d of the journal's %d bytes", sig, items, covered, size)
		}
	}
}

// TestProcessKilledOwnerListedInFull: after kill -9 the record trails the
// journal; the next listing shows every prompt the journal holds.
func TestProcessKilledOwnerListedInFull(t *testing.T) {
	e := newProcEnv(t)
	cmd, id := e.startREPL(t)
	cmd.Process.Kill()
	waitProcess(t, cmd)
	if l := e.sessions(t); len(l) != 1 || l[0].ID != id || l[0].Items != 3 || l[0].OwnerPID != nil {
		t.Fatalf("sessions after kill -9: %+v", l)
	}
	if items, covered, size := e.record(t, id); items != 3 || covered != size {
		t.Fatalf("the record after the listing says %d items and covers %d of %d bytes", items, covered, size)
	}
}

// TestProcessSignalStopsExec: `cairn tool exec` told to end by SIGTERM or
// SIGHUP (its terminal gone) stops its line as Ctrl-C does: the line's
// processes are killed, not left running after cairn with nothing to
// record what they change, and the shell history says how the line ended.
func TestProcessSignalStopsExec(t *testing.T) {
	e := newProcEnv(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		os.Remove(filepath.Join(e.dir, "started"))
		// The line says it started and its pid, then runs about 20 s.
		cmd := e.command("tool", "exec", "--", `echo $$ > pid; echo started > started; i=0; while [ $i -lt 2000 ]; do sleep 0.01; i=$((i+1)); done`)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill() })
		waitFile(t, filepath.Join(e.dir, "started"), "started\n")
		pid := 0
		b, _ := os.ReadFile(filepath.Join(e.dir, "pid"))
		if fmt.Sscan(string(b), &pid); pid <= 0 {
			t.Fatalf("the line's pid file holds %q", b) // never signal group 0, this test's own
		}
		t.Cleanup(func() { syscall.Kill(-pid, syscall.SIGKILL) })
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		waitProcess(t, cmd)
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Fatalf("%v: the line's shell (pid %d) outlived cairn: %v", sig, pid, err)
		}
		var h []struct {
			Status string `json:"status"`
			Exit   int    `json:"exit"`
		}
		out := e.mustRun(t, "--json", "shells", e.sessions(t)[0].ID)
		if err := json.Unmarshal([]byte(out), &h); err != nil || len(h) == 0 || h[len(h)-1].Status != "finished" || h[len(h)-1].Exit != 128+9 {
			t.Fatalf("%v: shell history %s (%v), want the line finished, killed", sig, out, err)
		}
	}
}
