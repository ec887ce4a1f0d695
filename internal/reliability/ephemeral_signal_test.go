package reliability

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"cairn/cli"
)

// The ephemeral signal rounds: the cairn REPL, run ephemeral (by
// --ephemeral, by storage.ephemeral in config.json, or unrecorded for a
// missing home), is given a private prompt and then ended by SIGTERM,
// SIGHUP (its terminal went away) or SIGINT: its temporary state folder,
// conversation included, must be gone when it exits. One killed with -9
// leaves it; the next cairn to start removes it, while a root whose owner
// lives (running, or stopped with SIGSTOP) is never touched.

const cliWorkerEnv = "CAIRN_CLI_WORKER"

// cliWorker runs the cairn command with the arguments of CAIRN_CLI_ARGS
// (a JSON array) as this process (TestMain starts it).
func cliWorker() int {
	var args []string
	if err := json.Unmarshal([]byte(os.Getenv("CAIRN_CLI_ARGS")), &args); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 1
	}
	os.Args = append([]string{"cairn"}, args...)
	return cli.Process()
}

// replProc is a cairn REPL run by cliWorker, its input a pipe.
type replProc struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	stderr bytes.Buffer
}

// ephEnv is the environment of one round: a runtime folder for the roots,
// a workspace, and a state folder (or none: a home that does not exist).
type ephEnv struct {
	xdg, ws, home string
	missingHome   bool
}

func newEphEnv(t *testing.T) *ephEnv {
	base := t.TempDir()
	e := &ephEnv{xdg: filepath.Join(base, "xdg"), ws: filepath.Join(base, "ws"), home: filepath.Join(base, "home")}
	for _, d := range []string{e.xdg, e.ws, e.home} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func (e *ephEnv) start(t *testing.T, args ...string) *replProc {
	t.Helper()
	a, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Dir = e.ws
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CAIRN_") && !strings.HasPrefix(kv, "XDG_RUNTIME_DIR=") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	env = append(env, cliWorkerEnv+"=1", "CAIRN_CLI_ARGS="+string(a), "XDG_RUNTIME_DIR="+e.xdg)
	if e.missingHome {
		env = append(env, "HOME="+filepath.Join(e.home, "nonexistent"))
	} else {
		env = append(env, "CAIRN_HOME="+e.home, "HOME="+e.home)
	}
	cmd.Env = env
	p := &replProc{cmd: cmd}
	cmd.Stdout = io.Discard
	cmd.Stderr = &p.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.in = in
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return p
}

// holding reports the files under dir whose content holds text.
func holding(t *testing.T, dir, text string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(text)) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// roots lists the temporary roots in the runtime folder.
func (e *ephEnv) roots(t *testing.T) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(e.xdg, "cairn-ephemeral-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// prompt types a private prompt and waits until the root holds it.
func (e *ephEnv) prompt(t *testing.T, p *replProc, text string) string {
	t.Helper()
	if _, err := io.WriteString(p.in, text+"\n"); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; {
		if h := holding(t, e.xdg, text); len(h) > 0 {
			return h[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("the prompt never reached the temporary root; stderr: %s", p.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestEphemeralSignalRounds(t *testing.T) {
	modes := []struct {
		name  string
		setup func(e *ephEnv)
		args  []string
	}{
		{"flag", func(*ephEnv) {}, []string{"--ephemeral"}},
		{"config", func(e *ephEnv) {
			os.WriteFile(filepath.Join(e.home, "config.json"), []byte(`{"storage":{"ephemeral":true}}`), 0o600)
		}, nil},
		{"missing-home", func(e *ephEnv) { e.missingHome = true }, nil},
	}
	for _, m := range modes {
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT} {
			t.Run(m.name+"/"+sig.String(), func(t *testing.T) {
				e := newEphEnv(t)
				m.setup(e)
				p := e.start(t, m.args...)
				secret := "my private prompt " + m.name + " " + sig.String()
				e.prompt(t, p, secret)
				p.cmd.Process.Signal(sig)
				p.cmd.Wait()
				ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus)
				if !ok || ws.Signaled() || ws.ExitStatus() != 128+int(sig) {
					t.Errorf("exit %v, want code %d; stderr: %s", p.cmd.ProcessState, 128+int(sig), p.stderr.String())
				}
				if h := holding(t, filepath.Dir(e.xdg), secret); len(h) > 0 {
					t.Errorf("the private prompt is still on disk: %v", h)
				}
				if r := e.roots(t); len(r) > 0 {
					t.Errorf("temporary roots left: %v", r)
				}
			})
		}
	}
}

func TestEphemeralKill9LeftRootIsSwept(t *testing.T) {
	e := newEphEnv(t)
	dead := e.start(t, "--ephemeral")
	e.prompt(t, dead, "the dead run's prompt")
	left := e.roots(t)
	if len(left) != 1 {
		t.Fatalf("roots %v, want the one of the run", left)
	}

	// Alive: one running, one stopped. Their roots are never swept.
	running := e.start(t, "--ephemeral")
	e.prompt(t, running, "the running run's prompt")
	stopped := e.start(t, "--ephemeral")
	e.prompt(t, stopped, "the stopped run's prompt")
	stopped.cmd.Process.Signal(syscall.SIGSTOP)
	defer stopped.cmd.Process.Signal(syscall.SIGCONT)

	dead.cmd.Process.Signal(syscall.SIGKILL)
	dead.cmd.Wait()
	if _, err := os.Stat(left[0]); err != nil {
		t.Fatalf("kill -9 removed the root (%v): the test shows nothing", err)
	}

	// The next cairn to start (a REPL whose input ends at once) removes
	// the dead run's root, and only it.
	next := e.start(t)
	next.in.Close()
	if err := next.cmd.Wait(); err != nil {
		t.Fatalf("the next cairn: %v; stderr: %s", err, next.stderr.String())
	}
	if h := holding(t, e.xdg, "the dead run's prompt"); len(h) > 0 {
		t.Errorf("the killed run's prompt is still on disk: %v", h)
	}
	if _, err := os.Stat(left[0]); !os.IsNotExist(err) {
		t.Errorf("the killed run's root is still there: %v", err)
	}
	for _, text := range []string{"the running run's prompt", "the stopped run's prompt"} {
		if h := holding(t, e.xdg, text); len(h) == 0 {
			t.Errorf("a live run's root was removed: %q is gone", text)
		}
	}
	stopped.cmd.Process.Signal(syscall.SIGCONT)
	for _, p := range []*replProc{running, stopped} {
		p.in.Close()
		if err := p.cmd.Wait(); err != nil {
			t.Errorf("a live run: %v; stderr: %s", err, p.stderr.String())
		}
	}
	if r := e.roots(t); len(r) > 0 {
		t.Errorf("roots left after every run ended: %v", r)
	}
}
