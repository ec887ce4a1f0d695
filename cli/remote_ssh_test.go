package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
	srv       *sshtest.Server // nil with a local transport (newLocalHostEnv)
	host      string          // the target's [user@]host
	ws        string
	hostHome  string
	cairn     string
	pidFile   string
	sshCmd    string
	cairnPath string
}

// client makes a client's state folder, with remote workspaces switched
// on, and returns a run of cairn there: lead, then args.
func (e *sshEnv) client(t *testing.T, lead ...string) func(in string, args ...string) (int, string, string) {
	client := filepath.Join(t.TempDir(), "client")
	if err := os.MkdirAll(filepath.Join(client, "home"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(client, "home", "config.json"), []byte(`{"experimental":{"remote_workcell":true}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return func(in string, args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		all := append([]string{"--home", filepath.Join(client, "home"), "-C", client}, lead...)
		code := Main(context.Background(), append(all, args...), strings.NewReader(in), &out, &errb)
		return code, out.String(), errb.String()
	}
}

func newSSHEnv(t *testing.T) *sshEnv {
	t.Helper()
	srv := sshtest.Start(t)
	cairn, err := exec.LookPath("cairn")
	if err != nil {
		t.Fatalf("the test binary as cairn: %v", err)
	}
	root := t.TempDir()
	e := &sshEnv{t: t, srv: srv, host: srv.Target(), ws: filepath.Join(root, "ws"), hostHome: filepath.Join(root, "host-state"), cairn: cairn,
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
	return remotews.Target{Host: e.host, Path: e.ws}
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
		{name: "other protocol", opts: remotews.Options{CairnPath: `printf '%s\n' '{"jsonrpc":"2.0","id":1,"error":{"code":6,"message":"x","data":{"kind":"version","protocol":99,"format":1,"version":"9.0.0"}}}'; cat >/dev/null; :`},
			kind: remotews.ErrVersion, says: fmt.Sprintf("speaks protocol 99 and state format 1; this cairn (%s) speaks protocol %d", engine.Version, remotews.Protocol)},
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

// The ssh connection killed during calls, round after round (a write in
// even rounds, a shell line that sleeps and then replaces the file in odd
// ones): every call that was answered is on the host, every file is its
// old or its new content, the next connect tells what became of the call
// the connection cut off (and the host's file agrees with it), and takes
// the session up again.
func TestSSHKilledMidCall(t *testing.T) {
	e := newSSHEnv(t)
	ctx := context.Background()
	sid := uuid.NewString()
	var binding remotews.Binding
	acked := map[string]string{} // file -> content the host acknowledged
	rng := rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano())))
	lost, told := 0, map[string]int{}
	var prev *lostCall // the call the round before lost
	for round := range *sshRounds {
		c := e.mustDial()
		if round == 0 {
			binding = c.Binding()
		}
		s, err := c.Session(ctx, sid, binding, false)
		if err != nil {
			t.Fatalf("round %d: reopen: %v", round, err)
		}
		if prev != nil {
			told[prev.check(t, round, s.Opened.Pending, e.read(prev.name))]++
			prev = nil
		}
		for name, want := range acked {
			if got := e.read(name); got != want {
				t.Fatalf("round %d: %s holds %d bytes, not the %d acknowledged", round, name, len(got), len(want))
			}
		}
		name := fmt.Sprintf("f%d.txt", rng.IntN(3))
		call := &lostCall{name: name, old: e.read(name), method: remotews.MethodToolWrite, what: name}
		n := 50000 + rng.IntN(200000)
		delay := time.Duration(rng.IntN(1200)) * time.Millisecond
		if round%2 == 1 {
			call.method = remotews.MethodExec
			call.what = fmt.Sprintf("sleep 0.%d; head -c %d /dev/zero | tr '\\0' r > %s.tmp && mv %s.tmp %s", 1+rng.IntN(8), n, name, name, name)
			call.next = strings.Repeat("r", n)
		} else {
			call.next = strings.Repeat(fmt.Sprintf("round %d\n", round), n)
		}
		go func() {
			time.Sleep(delay)
			e.killSSH()
		}()
		if call.method == remotews.MethodExec {
			var x *engine.ExecAnswer
			x, err = s.Exec(ctx, "", "", call.what, false, io.Discard, io.Discard)
			if err == nil && x.ExitCode != 0 {
				err = fmt.Errorf("the line exited %d", x.ExitCode)
			}
		} else {
			_, err = s.Write(ctx, "", "", name, []byte(call.next))
		}
		<-c.Done()
		switch {
		case err == nil:
			acked[name] = call.next
		case errors.Is(err, remotews.ErrLost):
			lost++
			if !strings.Contains(err.Error(), "during "+call.method) {
				t.Fatalf("round %d: the lost call is not named: %v", round, err)
			}
			got := e.read(name)
			if got != call.old && got != call.next {
				// The host may still be finishing: give it the time a
				// reconnect gives it, then judge.
				time.Sleep(2 * time.Second)
				got = e.read(name)
			}
			if got != call.old && got != call.next {
				t.Fatalf("round %d: %s is neither its old nor its new content (%d bytes)", round, name, len(got))
			}
			if got == call.next {
				acked[name] = call.next // made on the host; the answer was lost
			} else {
				delete(acked, name)
				if call.old != "<absent>" {
					acked[name] = call.old
				}
			}
			prev = call
		default:
			t.Fatalf("round %d: %v", round, err)
		}
		c.Close()
	}
	c := e.mustDial()
	s, err := c.Session(ctx, sid, binding, false)
	if err != nil {
		t.Fatalf("reopen at the end: %v", err)
	}
	if prev != nil {
		told[prev.check(t, *sshRounds, s.Opened.Pending, e.read(prev.name))]++
	}
	for name, want := range acked {
		if got := e.read(name); got != want {
			t.Fatalf("at the end: %s holds %d bytes, not the %d acknowledged", name, len(got), len(want))
		}
	}
	t.Logf("%d rounds, %d calls lost with the connection, told at the next connect as %v", *sshRounds, lost, told)
}

// lostCall is a call the connection's end cut off, and the file it
// changes.
type lostCall struct {
	name, old, next string
	method, what    string
}

// check checks what the connect after the lost call says of it: settled
// or interrupted (or not told: it never reached the host), and the host's
// file got agrees: new content when a write ran or left a record, old
// when it failed, changed nothing or never arrived; a shell line
// cancelled may have replaced the file before it was stopped. It returns
// what was told.
func (l *lostCall) check(t *testing.T, round int, p []remotews.PendingCall, got string) string {
	t.Helper()
	var w *remotews.PendingCall
	for i := range p {
		if p[i].Method == l.method && p[i].What == l.what {
			w = &p[i]
		}
	}
	if w == nil {
		if got != l.old {
			t.Fatalf("round %d: the lost %s is not told at the next connect (%+v), but %s changed", round, l.method, p, l.name)
		}
		return "not begun"
	}
	state := w.State
	if w.Record != "" {
		state += " with a record"
	}
	want := []string{l.old}
	switch {
	case w.State == remotews.PendingSettled && w.Error == "" && l.method == remotews.MethodExec:
		var x remotews.ExecResult
		if err := json.Unmarshal(w.Answer, &x); err != nil {
			t.Fatalf("round %d: the kept answer %s: %v", round, w.Answer, err)
		}
		if x.Cancelled {
			want = []string{l.old, l.next}
			state += ", stopped"
		} else {
			want = []string{l.next}
		}
	case w.State == remotews.PendingSettled && w.Error == "":
		want = []string{l.next}
	case w.State == remotews.PendingInterrupted && w.Record != "":
		want = []string{l.next}
	}
	if !slices.Contains(want, got) {
		t.Fatalf("round %d: the lost %s is told %s (error %q), but %s holds %d bytes (old %d, new %d)",
			round, l.method, state, w.Error, l.name, len(got), len(l.old), len(l.next))
	}
	return state
}

// The whole REPL flow through the real sshd: a session on the remote
// workspace (file tools, a shell line whose output streams back, undo,
// redo), resumed with -r over a new connection where undo puts the bytes
// back; then the workspace replaced (deleted and made again), which
// refuses the session naming the new generation and changes nothing.
func TestSSHREPL(t *testing.T) {
	e := newSSHEnv(t)
	run := e.client(t, "--ssh-command", e.sshCmd, "--cairn-path", e.cairnPath)
	tgt := e.srv.Target() + ":" + e.ws
	content := "head line\n" + strings.Repeat("line of the remote file\n", 500)
	code, out, errs := run(":write src/a.txt\n"+content+".\n:edit src/a.txt 'head line' 'edited head'\n"+
		":exec echo streamed from $(hostname) >&2; cp src/a.txt copy.txt\nthe first prompt\n/undo\n/redo\n/exit\n", "--ssh", tgt)
	if code != 0 || !strings.Contains(out, "Changed src/a.txt (snapshot ") || !strings.Contains(out, "streamed from ") ||
		!strings.Contains(out, "Undid ") || !strings.Contains(out, "Redid ") {
		t.Fatalf("remote REPL: %d\n%s\n%s", code, out, errs)
	}
	edited := "edited head\n" + strings.Repeat("line of the remote file\n", 500)
	if e.read("src/a.txt") != edited || e.read("copy.txt") != edited {
		t.Fatalf("the host's files after the session: %q", e.read("src/a.txt")[:40])
	}
	id := out[strings.LastIndex(out, "cairn --resume ")+len("cairn --resume ") : len(out)-1]

	// Resumed over a new connection: two undos put the written bytes back,
	// then remove the file.
	// /diff reads the host's change records: the shell line's copy.
	code, out, errs = run("/diff\n/exit\n", "-r", id)
	if code != 0 || !strings.Contains(out, "What the newest recorded call changed (exec, record ") ||
		!strings.Contains(out, "create  copy.txt  +501 −0") || !strings.Contains(out, "\n+edited head\n") {
		t.Fatalf("/diff remote: %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = run("/undo\n/exit\n", "-r", id)
	if code != 0 || !strings.Contains(out, "Resumed ") || e.read("src/a.txt") != content {
		t.Fatalf("resume and undo: %d\n%s\n%s\nfile %q", code, out, errs, e.read("src/a.txt")[:40])
	}
	code, out, _ = run("/undo\n/exit\n", "-r", id)
	if code != 0 || e.read("src/a.txt") != "<absent>" {
		t.Fatalf("second undo: %d\n%s", code, out)
	}
	code, out, _ = run("/redo\n/exit\n", "-r", id)
	if code != 0 || e.read("src/a.txt") != content {
		t.Fatalf("redo: %d\n%s", code, out)
	}

	// The workspace replaced: deleted and made again.
	if err := os.RemoveAll(e.ws); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(e.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, errs = run("/undo\n/exit\n", "-r", id)
	if code != ExitFailed || !strings.Contains(errs, "was replaced (generation 2 since ") || !strings.Contains(errs, "are of generation 1 and are never applied") {
		t.Fatalf("replaced workspace: %d\n%s\n%s", code, out, errs)
	}
	if ents, _ := os.ReadDir(e.ws); len(ents) != 0 {
		t.Fatalf("the refused resume changed the new workspace: %v", ents)
	}
	// A new session there starts on the new generation.
	code, out, errs = run(":write fresh.txt\nnew\n.\n/exit\n", "--ssh", tgt)
	if code != 0 || !strings.Contains(out, "generation 2)") || e.read("fresh.txt") != "new\n" {
		t.Fatalf("a new session on the replaced workspace: %d\n%s\n%s", code, out, errs)
	}
}

// A file revert on a remote workspace through the real sshd: the host
// plans and applies it from its change records, placed by the client's
// items; the host's bytes are compared before and after, and /unrevert
// puts them back.
func TestSSHFileRevert(t *testing.T) {
	e := newSSHEnv(t)
	run := e.client(t)
	first := "first turn\t\x01 bytes\n" + strings.Repeat("kept line\n", 300)
	code, out, errs := run("the first prompt\n:write a.txt\n"+first+".\nthe second prompt\n:edit a.txt 'first turn' 'second turn'\n"+
		":write b.txt\nmade in the second turn\n.\n:exec printf 'by a line' > c.txt\n/revert 2 files\n/revert 2 files\n/exit\n",
		"--ssh", e.srv.Target()+":"+e.ws, "--ssh-command", e.sshCmd, "--cairn-path", e.cairnPath)
	if code != 0 || !strings.Contains(out, "would revert 3 files: create 0, replace 1, delete 2") ||
		!strings.Contains(out, "Reverted 3 files: create 0, replace 1, delete 2") {
		t.Fatalf("remote file revert: %d\n%s\n%s", code, out, errs)
	}
	if e.read("a.txt") != first || e.read("b.txt") != "<absent>" || e.read("c.txt") != "<absent>" {
		t.Fatalf("the host's files after the revert: a %q b %q c %q", e.read("a.txt")[:20], e.read("b.txt"), e.read("c.txt"))
	}
	id := out[strings.LastIndex(out, "cairn --resume ")+len("cairn --resume ") : len(out)-1]
	// Resumed with the ssh command line and host cairn the session keeps.
	code, out, errs = run("/unrevert\n/exit\n", "-r", id)
	if code != 0 || !strings.Contains(out, "Put back 3 files") {
		t.Fatalf("unrevert: %d\n%s\n%s", code, out, errs)
	}
	if e.read("a.txt") != strings.Replace(first, "first turn", "second turn", 1) || e.read("b.txt") != "made in the second turn\n" || e.read("c.txt") != "by a line" {
		t.Fatalf("the host's files after the unrevert: a %q b %q c %q", e.read("a.txt")[:20], e.read("b.txt"), e.read("c.txt"))
	}
}

// A turn sent without waiting for each answer (GoWrite, GoCommit) through
// the real sshd, its ssh connection killed at a random moment: every
// write whose answer arrived holds its bytes on the host, every file is
// its old or its new content, and each write that ran on the host but
// whose answer did not arrive is told at the next connect (the answers
// that did arrive are not).
func TestSSHKilledMidPipelinedTurn(t *testing.T) {
	e := newSSHEnv(t)
	ctx := context.Background()
	sid := uuid.NewString()
	var binding remotews.Binding
	rng := rand.New(rand.NewPCG(2, uint64(time.Now().UnixNano())))
	const n = 20
	name := func(i int) string { return fmt.Sprintf("p%02d.txt", i) }
	type sent struct{ old, next string }
	var cut map[int]sent // the writes of the round before whose answers did not arrive
	told := 0
	for round := range *sshRounds {
		c := e.mustDial()
		if round == 0 {
			binding = c.Binding()
		}
		s, err := c.Session(ctx, sid, binding, false)
		if err != nil {
			t.Fatalf("round %d: reopen: %v", round, err)
		}
		for i, w := range cut {
			got := e.read(name(i))
			var p *remotews.PendingCall
			for k := range s.Opened.Pending {
				if s.Opened.Pending[k].What == name(i) {
					p = &s.Opened.Pending[k]
				}
			}
			switch {
			case got != w.old && got != w.next:
				t.Fatalf("round %d: %s is neither its old nor its new content", round, name(i))
			case got == w.next && w.next != w.old && p == nil:
				t.Fatalf("round %d: the write of %s ran on the host, its answer never arrived, and the connect does not tell it (%+v)", round, name(i), s.Opened.Pending)
			case p != nil:
				told++
			}
		}
		cut = map[int]sent{}
		content := make([]string, n)
		old := make([]string, n)
		pend := make([]*remotews.Pending[engine.ToolAnswer], n)
		delay := time.Duration(rng.IntN(300)) * time.Millisecond
		go func() {
			time.Sleep(delay)
			e.killSSH()
		}()
		for i := range n {
			old[i] = e.read(name(i))
			content[i] = strings.Repeat(fmt.Sprintf("round %d file %d\n", round, i), 500+rng.IntN(3000))
			pend[i] = s.GoWrite(ctx, "", "", name(i), []byte(content[i]))
		}
		end := s.GoCommit(ctx)
		for i, p := range pend {
			_, err := p.Wait()
			switch {
			case err == nil:
				if got := e.read(name(i)); got != content[i] {
					t.Fatalf("round %d: %s was acknowledged but holds %d bytes, not %d", round, name(i), len(got), len(content[i]))
				}
			case errors.Is(err, remotews.ErrLost):
				cut[i] = sent{old: old[i], next: content[i]}
			default:
				t.Fatalf("round %d: write %d: %v", round, i, err)
			}
		}
		_, _ = end.Wait()
		<-c.Done()
		c.Close()
	}
	// The host's cairn of the last killed connection runs in a session
	// of its own and closes the host session after the kill: a last
	// connect waits for it (the session's flock) before the folders go.
	c := e.mustDial()
	if s, err := c.Session(ctx, sid, binding, false); err != nil {
		t.Fatalf("the last reconnect: %v", err)
	} else if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	c.Close()
	t.Logf("%d rounds; %d writes cut off and told at the next connect", *sshRounds, told)
}
