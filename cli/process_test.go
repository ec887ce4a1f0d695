package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// These tests run the real cairn binary in several processes at once: the
// ownership lock and the lazy creation of a workspace folder are only
// really tested across processes.

// procGuard bounds every wait; nothing asserts how long anything takes.
const procGuard = 30 * time.Second

// cairnBin is the cairn command in a temporary folder: this test binary
// under the name cairn, which runs cairn as cmd/cairn does (TestMain), and
// hears what it prints (messages_test.go).
func cairnBin(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "cairn")
	if err := os.Symlink(exe, bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

type procEnv struct {
	bin, home, dir string
}

func newProcEnv(t *testing.T) *procEnv {
	return &procEnv{bin: cairnBin(t), home: t.TempDir(), dir: t.TempDir()}
}

func (e *procEnv) command(args ...string) *exec.Cmd {
	cmd := exec.Command(e.bin, append([]string{"--home", e.home, "-C", e.dir}, args...)...)
	cmd.Env = append(os.Environ(), "CAIRN_HOME="+e.home)
	return cmd
}

// run runs one cairn call to the end and returns its exit code and output.
func (e *procEnv) run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return e.runIn(t, "", args...)
}

// runIn is run with stdin holding in.
func (e *procEnv) runIn(t *testing.T, in string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := e.command(args...)
	cmd.Stdin = strings.NewReader(in)
	var o, s bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &s
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), o.String(), s.String()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, o.String(), s.String()
	case <-time.After(procGuard):
		cmd.Process.Kill()
		t.Fatalf("cairn %v never returned", args)
		return -1, "", ""
	}
}

func (e *procEnv) mustRun(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errs := e.run(t, args...)
	if code != 0 {
		t.Fatalf("cairn %v: exit %d: %s", args, code, errs)
	}
	return out
}

type procSession struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Items    int    `json:"items"`
	OwnerPID *int   `json:"owner_pid"`
}

func (e *procEnv) sessions(t *testing.T) []procSession {
	t.Helper()
	var l []procSession
	if err := json.Unmarshal([]byte(e.mustRun(t, "sessions", "--json")), &l); err != nil {
		t.Fatal(err)
	}
	return l
}

// TestProcessOwnership: a REPL owns its session; a plumbing write from a
// second process fails with exit 4 naming the owner's pid, reads still
// work, and once the owner leaves the write goes through.
func TestProcessOwnership(t *testing.T) {
	e := newProcEnv(t)
	e.mustRun(t, "prompt", "--new", "owned")
	l := e.sessions(t)
	if len(l) != 1 || l[0].OwnerPID != nil {
		t.Fatalf("sessions before: %+v", l)
	}
	id := l[0].ID

	// The owner: `cairn -r ID` reading a pipe that stays open.
	owner := e.command("-r", id)
	stdin, err := owner.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var ownerErr bytes.Buffer
	owner.Stderr = &ownerErr
	lines := startLines(t, owner)
	// The resume message is printed once the session is open and owned.
	waitLine(t, lines, `Resumed "owned"`)
	pid := owner.Process.Pid

	// Writes from a second process: exit 4, the owner's pid on stderr.
	for _, args := range [][]string{
		{"prompt", "--session", id, "x"},
		{"prompt", "x"}, // the most recent session is the owned one
		{"append", "--session", id, "--type", "assistant", "x"},
		{"rename", id, "other name"},
		{"-r", id},
	} {
		code, out, errs := e.run(t, args...)
		if code != ExitBusy || !strings.Contains(errs, fmt.Sprintf("pid %d", pid)) {
			t.Fatalf("cairn %v while owned: exit %d, stderr %q, stdout %q", args, code, errs, out)
		}
	}
	code, out, _ := e.run(t, "prompt", "--json", "--session", id, "x")
	if code != ExitBusy || !strings.Contains(out, `"code":"busy"`) {
		t.Fatalf("--json while owned: exit %d, %q", code, out)
	}

	// Reads need no lock; the listing names the owner.
	if l := e.sessions(t); len(l) != 1 || l[0].OwnerPID == nil || *l[0].OwnerPID != pid {
		t.Fatalf("sessions while owned: %+v (owner pid %d)", l, pid)
	}
	if out := e.mustRun(t, "sessions"); !strings.Contains(out, fmt.Sprintf("[open in pid %d]", pid)) {
		t.Fatalf("sessions text while owned: %q", out)
	}
	if out := e.mustRun(t, "show", "--json", id); !strings.Contains(out, fmt.Sprintf(`"owner_pid":%d`, pid)) {
		t.Fatalf("show while owned: %q", out)
	}
	e.mustRun(t, "transcript", id)
	e.mustRun(t, "trail", id)

	// The owner takes a prompt, then leaves at end of input.
	io.WriteString(stdin, "from the owner\n")
	stdin.Close()
	waitLine(t, lines, "cairn --resume "+id)
	if err := waitProcess(t, owner); err != nil {
		t.Fatalf("owner: %v: %s", err, ownerErr.String())
	}

	// Free again: the second process's write goes through.
	e.mustRun(t, "prompt", "--session", id, "after the owner")
	l = e.sessions(t)
	if len(l) != 1 || l[0].OwnerPID != nil || l[0].Items != 3 {
		t.Fatalf("sessions after: %+v", l)
	}
}

// waitFile waits until the file at path holds want (a shell line a test
// started has got that far), failing the test after procGuard.
func waitFile(t *testing.T, path, want string) {
	t.Helper()
	for deadline := time.Now().Add(procGuard); ; time.Sleep(10 * time.Millisecond) {
		if b, _ := os.ReadFile(path); string(b) == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never held %q", path, want)
		}
	}
}

func waitLine(t *testing.T, lines <-chan string, want string) {
	t.Helper()
	deadline := time.After(procGuard)
	var seen []string
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("output ended before %q; saw %q", want, seen)
			}
			if strings.Contains(l, want) {
				return
			}
			seen = append(seen, l)
		case <-deadline:
			t.Fatalf("%q never printed; saw %q", want, seen)
		}
	}
}

func waitProcess(t *testing.T, cmd *exec.Cmd) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(procGuard):
		cmd.Process.Kill()
		t.Fatal("process never exited")
		return nil
	}
}

// TestProcessRacingNew: several `cairn prompt --new` started together on a
// directory with no workspace folder yet all succeed, each with its own
// session.
func TestProcessRacingNew(t *testing.T) {
	e := newProcEnv(t)
	const n = 4
	for round := range 3 {
		e.dir = t.TempDir() // a fresh workspace each round
		cmds := make([]*exec.Cmd, n)
		outs := make([]*bytes.Buffer, n)
		errs := make([]*bytes.Buffer, n)
		for i := range cmds {
			cmds[i] = e.command("prompt", "--new", "--json", fmt.Sprintf("racer %d", i))
			outs[i], errs[i] = &bytes.Buffer{}, &bytes.Buffer{}
			cmds[i].Stdout, cmds[i].Stderr = outs[i], errs[i]
		}
		for _, c := range cmds {
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
		}
		ids := map[string]bool{}
		for i, c := range cmds {
			if err := waitProcess(t, c); err != nil {
				t.Fatalf("round %d racer %d: %v: %s", round, i, err, errs[i])
			}
			var a struct{ Session string }
			if err := json.Unmarshal(outs[i].Bytes(), &a); err != nil || a.Session == "" {
				t.Fatalf("round %d racer %d: %q", round, i, outs[i])
			}
			ids[a.Session] = true
		}
		if len(ids) != n {
			t.Fatalf("round %d: %d distinct sessions, want %d", round, len(ids), n)
		}
		l := e.sessions(t)
		if len(l) != n {
			t.Fatalf("round %d: listed %+v", round, l)
		}
		for _, s := range l {
			if !ids[s.ID] || s.Items != 1 || !strings.HasPrefix(s.Title, "racer ") {
				t.Fatalf("round %d: listed %+v", round, s)
			}
		}
		if out := e.mustRun(t, "storage", "fsck"); !strings.Contains(out, " 0 problems") {
			t.Fatalf("round %d: fsck: %s", round, out)
		}
	}
}

// TestProcessTrailFollow: `cairn trail -f` prints the lines on disk, then
// each turn another process appends, as it is appended.
func TestProcessTrailFollow(t *testing.T) {
	e := newProcEnv(t)
	if code, _, errs := e.runIn(t, "first turn\n"); code != 0 {
		t.Fatalf("cairn: exit %d: %s", code, errs)
	}
	l := e.sessions(t)
	if len(l) != 1 {
		t.Fatalf("sessions: %+v", l)
	}
	id := l[0].ID
	f := e.command("trail", "-f", id)
	lines := startLines(t, f)
	waitLine(t, lines, `"turn":1,`)
	// Reading the trail takes no lock: the follower does not stop a writer.
	for i, p := range []string{"second turn", "third turn"} {
		if code, _, errs := e.runIn(t, p+"\n", "-r", id); code != 0 {
			t.Fatalf("cairn -r: exit %d: %s", code, errs)
		}
		waitLine(t, lines, fmt.Sprintf(`"turn":%d,`, i+2))
	}
}

// startLines starts cmd and returns its stdout as a channel of lines,
// closed when stdout ends; the process is killed when the test ends.
func startLines(t *testing.T, cmd *exec.Cmd) <-chan string {
	t.Helper()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	return lines
}
