package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"cairn/engine"
	"cairn/internal/sshtest"
	"cairn/remotews"

	"github.com/google/uuid"
)

var sshRounds = flag.Int("ssh-rounds", 3, "rounds of the ssh connection killed mid-call (the issue asks for 20)")

// sshEnv is a real sshd on loopback, a host state folder and a workspace
// on the "host" (this machine, reached through sshd), and the cairn the
// host runs: this test binary as cairn (TestMain), on PATH.
type sshEnv struct {
	t         *testing.T
	srv       *sshtest.Server
	ws        string
	hostHome  string
	cairn     string
	pidFile   string
	sshCmd    string
	cairnPath string
}

func newSSHEnv(t *testing.T) *sshEnv {
	t.Helper()
	srv := sshtest.Start(t)
	cairn, err := exec.LookPath("cairn")
	if err != nil {
		t.Fatalf("the test binary as cairn: %v", err)
	}
	root := t.TempDir()
	e := &sshEnv{t: t, srv: srv, ws: filepath.Join(root, "ws"), hostHome: filepath.Join(root, "host-state"), cairn: cairn,
		pidFile: filepath.Join(root, "ssh.pid")}
	if err := os.Mkdir(e.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	// The ssh command line records ssh's pid, so a test can kill the
	// connection.
	e.sshCmd = "echo $$ > " + sshtest.Quote(e.pidFile) + "; exec " + srv.CommandLine()
	e.cairnPath = "CAIRN_HOME=" + sshtest.Quote(e.hostHome) + " " + sshtest.Quote(cairn)
	return e
}

func (e *sshEnv) target() remotews.Target {
	return remotews.Target{Host: e.srv.Target(), Path: e.ws}
}

func (e *sshEnv) dial(opts remotews.Options) (*remotews.Client, error) {
	if opts.SSHCommand == "" {
		opts.SSHCommand = e.sshCmd
	}
	if opts.CairnPath == "" {
		opts.CairnPath = e.cairnPath
	}
	return remotews.Dial(context.Background(), e.target(), opts)
}

func (e *sshEnv) mustDial() *remotews.Client {
	e.t.Helper()
	c, err := e.dial(remotews.Options{})
	if err != nil {
		e.t.Fatalf("dial: %v", err)
	}
	e.t.Cleanup(func() { c.Close() })
	return c
}

func (e *sshEnv) read(name string) string {
	b, err := os.ReadFile(filepath.Join(e.ws, name))
	if err != nil {
		return "<absent>"
	}
	return string(b)
}

// killSSH kills the ssh client of the current connection.
func (e *sshEnv) killSSH() {
	b, err := os.ReadFile(e.pidFile)
	if err != nil {
		e.t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		e.t.Fatal(err)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
}

// The thin slice through the real sshd: a write and an undo of a client
// session performed by cairn host on the host, the bytes checked there;
// a shell line's output streamed back and the line cancelled.
func TestSSHWriteUndoExec(t *testing.T) {
	e := newSSHEnv(t)
	c := e.mustDial()
	w := c.Welcome
	if w.Path != e.ws || w.Generation != 1 || w.Identity == "" || w.Protocol != remotews.Protocol || w.Version != engine.Version {
		t.Fatalf("welcome %+v", w)
	}
	ctx := context.Background()
	s, err := c.Session(ctx, uuid.NewString(), c.Binding(), false)
	if err != nil {
		t.Fatal(err)
	}
	content := bytes.Repeat([]byte("remote bytes\n"), 1000)
	a, err := s.Write(ctx, "", "", "src/main.txt", content)
	if err != nil || a.Snapshot == nil {
		t.Fatalf("write: %+v %v", a, err)
	}
	if e.read("src/main.txt") != string(content) {
		t.Fatal("the host's file is not what was written")
	}
	if _, err := s.Edit(ctx, "", "", "src/main.txt", strings.Repeat("remote bytes\n", 1000), "edited\n", false); err != nil {
		t.Fatal(err)
	}
	if e.read("src/main.txt") != "edited\n" {
		t.Fatalf("edit: %q", e.read("src/main.txt"))
	}
	if r, err := s.Undo(ctx); err != nil || !r.OK {
		t.Fatalf("undo: %+v %v", r, err)
	}
	if e.read("src/main.txt") != string(content) {
		t.Fatal("undo did not put the written bytes back on the host")
	}
	if _, err := s.Undo(ctx); err != nil || e.read("src/main.txt") != "<absent>" {
		t.Fatalf("second undo: %v, file %q", err, e.read("src/main.txt"))
	}

	var out bytes.Buffer
	x, err := s.Exec(ctx, "", "", "echo from the host; echo made > made.txt", false, &out, io.Discard)
	if err != nil || x.ExitCode != 0 || out.String() != "from the host\n" || e.read("made.txt") != "made\n" || x.Snapshot == nil {
		t.Fatalf("exec: %+v %v, out %q", x, err, out.String())
	}

	cctx, cancel := context.WithCancel(ctx)
	pr, pw := io.Pipe()
	go func() {
		buf := make([]byte, 64)
		if n, _ := pr.Read(buf); strings.Contains(string(buf[:n]), "running") {
			cancel()
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	x, err = s.Exec(cctx, "", "", "echo running; exec sleep 600", false, pw, io.Discard)
	pw.Close()
	if !errors.Is(err, context.Canceled) || x == nil || x.ExitCode == 0 {
		t.Fatalf("cancelled exec: %+v %v", x, err)
	}
	// The connection still works after a cancel.
	if l, err := s.Snapshots(ctx); err != nil || len(l.Snapshots) != 2 {
		t.Fatalf("snapshots after the cancel: %+v %v", l, err)
	}
}

// Each way of failing to reach a workspace says what it is, through the
// real ssh: no cairn on the host, a refused key, no such folder, another
// protocol, an older cairn without `cairn host`.
func TestSSHFailures(t *testing.T) {
	e := newSSHEnv(t)
	cases := []struct {
		name string
		opts remotews.Options
		path string
		kind error
		says string
	}{
		{name: "no cairn", opts: remotews.Options{CairnPath: "/nonexistent/cairn"}, kind: remotews.ErrNoCairn, says: "has no cairn to run (ssh exit 127"},
		{name: "refused key", opts: remotews.Options{SSHCommand: strings.Replace(e.srv.CommandLine(), e.srv.UserKey, e.srv.Dir+"/host_key", 1)},
			kind: remotews.ErrSSH, says: "Permission denied (publickey)"},
		{name: "wrong path", path: filepath.Join(e.ws, "missing"), kind: engine.ErrNotFound, says: "no folder " + filepath.Join(e.ws, "missing") + " on "},
		{name: "other protocol", opts: remotews.Options{CairnPath: `printf '%s\n' '{"jsonrpc":"2.0","id":1,"error":{"code":6,"message":"x","data":{"kind":"version","protocol":2,"format":1,"version":"9.0.0"}}}'; cat >/dev/null; :`},
			kind: remotews.ErrVersion, says: "speaks protocol 2 and state format 1; this cairn (" + engine.Version + ") speaks protocol 1"},
		{name: "older cairn", opts: remotews.Options{CairnPath: "sh -c 'echo \"cairn: error: unexpected argument host\" >&2; exit 2'"},
			kind: remotews.ErrVersion, says: "has no `cairn host` (an older cairn"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tg := e.target()
			if c.path != "" {
				tg.Path = c.path
			}
			if c.opts.SSHCommand == "" {
				c.opts.SSHCommand = e.sshCmd
			}
			if c.opts.CairnPath == "" {
				c.opts.CairnPath = e.cairnPath
			}
			_, err := remotews.Dial(context.Background(), tg, c.opts)
			if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("got %v\nwant %v saying %q", err, c.kind, c.says)
			}
		})
	}
}

// The same failures through the cairn command: exit codes and words.
func TestSSHCommandLine(t *testing.T) {
	e := newSSHEnv(t)
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Main(context.Background(), append([]string{"--home", filepath.Join(e.t.TempDir(), "client")}, args...), strings.NewReader(""), &out, &errb)
		return code, out.String(), errb.String()
	}
	tgt := e.srv.Target() + ":" + e.ws
	code, out, errs := run("--json", "--ssh-command", e.sshCmd, "--cairn-path", e.cairnPath, "--ssh", tgt, "where")
	if code != 0 || !strings.Contains(out, `"generation":1`) || !strings.Contains(out, `"path":"`+e.ws+`"`) {
		t.Fatalf("where: %d %s %s", code, out, errs)
	}
	code, _, errs = run("--ssh-command", e.sshCmd, "--cairn-path", "/nonexistent/cairn", "--ssh", tgt, "where")
	if code != ExitFailed || !strings.Contains(errs, "has no cairn to run") {
		t.Fatalf("no cairn: %d %s", code, errs)
	}
	code, out, _ = run("--json", "--ssh-command", e.sshCmd, "--cairn-path", e.cairnPath, "--ssh", e.srv.Target()+":"+e.ws+"/missing", "where")
	if code != ExitFailed || !strings.Contains(out, `"code":"not_found"`) {
		t.Fatalf("wrong path: %d %s", code, out)
	}
	code, _, errs = run("--ssh", e.srv.Target()+":relative/path", "where")
	if code != ExitUsage || !strings.Contains(errs, "not an absolute path") {
		t.Fatalf("relative path: %d %s", code, errs)
	}
	code, _, errs = run("--ssh", tgt, "storage", "stats")
	if code != ExitUsage || !strings.Contains(errs, "not with --ssh") {
		t.Fatalf("storage: %d %s", code, errs)
	}
	code, out, _ = run("--json", "--ssh-command", strings.Replace(e.srv.CommandLine(), e.srv.UserKey, e.srv.Dir+"/host_key", 1), "--cairn-path", e.cairnPath, "--ssh", tgt, "where")
	if code != ExitFailed || !strings.Contains(out, `"code":"ssh"`) || !strings.Contains(out, "exit 255") {
		t.Fatalf("refused key: %d %s", code, out)
	}
}

// The ssh connection killed during writes, round after round: every
// write that was answered is on the host, every file is its old or its
// new content, and the next connection takes the session up again.
func TestSSHKilledMidCall(t *testing.T) {
	e := newSSHEnv(t)
	ctx := context.Background()
	sid := uuid.NewString()
	var binding remotews.Binding
	acked := map[string]string{} // file -> content the host acknowledged
	rng := rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano())))
	lost := 0
	for round := range *sshRounds {
		c := e.mustDial()
		if round == 0 {
			binding = c.Binding()
		}
		s, err := c.Session(ctx, sid, binding, false)
		if err != nil {
			t.Fatalf("round %d: reopen: %v", round, err)
		}
		for name, want := range acked {
			if got := e.read(name); got != want {
				t.Fatalf("round %d: %s holds %d bytes, not the %d acknowledged", round, name, len(got), len(want))
			}
		}
		name := fmt.Sprintf("f%d.txt", rng.IntN(3))
		old := e.read(name)
		next := strings.Repeat(fmt.Sprintf("round %d\n", round), 50000+rng.IntN(200000))
		go func() {
			time.Sleep(time.Duration(rng.IntN(1200)) * time.Millisecond)
			e.killSSH()
		}()
		_, err = s.Write(ctx, "", "", name, []byte(next))
		<-c.Done()
		switch {
		case err == nil:
			acked[name] = next
		case errors.Is(err, remotews.ErrLost):
			lost++
			if !strings.Contains(err.Error(), "during tool.write") {
				t.Fatalf("round %d: the lost call is not named: %v", round, err)
			}
			got := e.read(name)
			if got != old && got != next {
				// The host may still be finishing: give it the time a
				// reconnect gives it, then judge.
				time.Sleep(2 * time.Second)
				got = e.read(name)
			}
			if got != old && got != next {
				t.Fatalf("round %d: %s is neither its old nor its new content (%d bytes)", round, name, len(got))
			}
			if got == next {
				acked[name] = next // made on the host; the answer was lost
			}
		default:
			t.Fatalf("round %d: %v", round, err)
		}
		c.Close()
	}
	c := e.mustDial()
	if _, err := c.Session(ctx, sid, binding, false); err != nil {
		t.Fatalf("reopen at the end: %v", err)
	}
	for name, want := range acked {
		if got := e.read(name); got != want {
			t.Fatalf("at the end: %s holds %d bytes, not the %d acknowledged", name, len(got), len(want))
		}
	}
	t.Logf("%d rounds, %d calls lost with the connection", *sshRounds, lost)
}
