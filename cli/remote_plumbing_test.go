package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"cairn/internal/sshtest"
)

// newLocalHostEnv is an sshEnv without sshd: its ssh command line runs
// the host's command on this machine (as testdata/script's fakessh), so
// the default go test covers what needs no real connection. The host is
// called devbox.
func newLocalHostEnv(t *testing.T) *sshEnv {
	t.Helper()
	cairn, err := exec.LookPath("cairn")
	if err != nil {
		t.Fatalf("the test binary as cairn: %v", err)
	}
	root := t.TempDir()
	e := &sshEnv{t: t, host: "devbox", ws: filepath.Join(root, "ws"), hostHome: filepath.Join(root, "host-state"), cairn: cairn,
		pidFile: filepath.Join(root, "ssh.pid")}
	if err := os.Mkdir(e.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	fake := filepath.Join(root, "fakessh")
	// ssh's words: -- HOST COMMAND; the command runs here.
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho $$ > "+sshtest.Quote(e.pidFile)+"\nshift 2\nexec sh -c \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.sshCmd = sshtest.Quote(fake)
	e.cairnPath = "CAIRN_HOME=" + sshtest.Quote(e.hostHome) + " " + sshtest.Quote(cairn)
	return e
}

// clientHome is e.client with the client's state folder and directory
// named: dir/home and dir.
func (e *sshEnv) clientHome(t *testing.T, dir string, lead ...string) func(in string, args ...string) (int, string, string) {
	if err := os.MkdirAll(filepath.Join(dir, "home"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "home", "config.json"), []byte(`{"experimental":{"remote_workcell":true}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return func(in string, args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		all := append([]string{"--home", filepath.Join(dir, "home"), "-C", dir}, lead...)
		code := Main(context.Background(), append(all, args...), strings.NewReader(in), &out, &errb)
		return code, out.String(), errb.String()
	}
}

// sessionJournal is the bytes of every journal of session id in the
// client's state folder home: what a refused command must leave as it
// was.
func sessionJournal(t *testing.T, home, id string) string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(home, "workspaces", "*", "sessions", id+".*.jsonl"))
	if err != nil || len(names) == 0 {
		t.Fatalf("the journals of %s in %s: %v %v", id, home, names, err)
	}
	var all strings.Builder
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		all.WriteString(n + "\n" + string(b))
	}
	return all.String()
}

func resumeID(out string) string {
	return out[strings.LastIndex(out, "cairn --resume ")+len("cairn --resume ") : len(out)-1]
}

// A plumbing command on a remote-bound session whose host session another
// connection holds (a REPL's): the reads work, as a local read works while
// a REPL holds a local session; a write fails busy (exit 4) naming the
// session and the host, and writes nothing here first: the host's
// refusal comes before the session here is opened.
func TestRemotePlumbingWhileHeld(t *testing.T) {
	e := newLocalHostEnv(t)
	dir := filepath.Join(t.TempDir(), "client")
	run := e.clientHome(t, dir, "--ssh-command", e.sshCmd, "--cairn-path", e.cairnPath)
	code, out, errs := run("the first prompt\n:write a.txt\none\n.\nthe second prompt\n:edit a.txt one two\n:exec echo hi\n/exit\n",
		"--ssh", "devbox:"+e.ws)
	if code != 0 {
		t.Fatalf("remote session: %d\n%s\n%s", code, out, errs)
	}
	id := resumeID(out)

	held := e.mustDial()
	hs, err := held.Session(context.Background(), id, held.Binding(), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"diff", id, "2"}, {"shells", id}, {"snapshots", "--session", id},
		{"revert", id, "--to", "2", "--files"}, {"--json", "snapshots", "--session", id}} {
		code, out, errs := run("", args...)
		if code != 0 || out == "" {
			t.Fatalf("%v while a REPL holds the session: %d\n%s\n%s", args, code, out, errs)
		}
	}
	journal := sessionJournal(t, filepath.Join(dir, "home"), id)
	for _, args := range [][]string{{"undo", "--session", id}, {"prompt", "--session", id, "not appended"},
		{"revert", id, "--to", "2", "--files", "--apply"}, {"unrevert", id}, {"tool", "--session", id, "write", "t.txt"}} {
		code, out, errs := run("written by the tool\n", args...)
		if code != ExitBusy || !strings.Contains(errs, "session "+id+" is open on devbox in another cairn") {
			t.Fatalf("%v while a REPL holds the session: %d\n%s\n%s", args, code, out, errs)
		}
		if got := sessionJournal(t, filepath.Join(dir, "home"), id); got != journal {
			t.Fatalf("%v refused busy wrote the session here:\n%s\nwas\n%s", args, got, journal)
		}
		if e.read("a.txt") != "two\n" || e.read("t.txt") != "<absent>" {
			t.Fatalf("%v refused busy changed the host's files", args)
		}
	}
	if err := hs.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Let go, the write runs.
	code, out, errs = run("", "undo", "--session", id)
	if code != 0 || e.read("a.txt") != "one\n" {
		t.Fatalf("undo once the host session is let go: %d\n%s\n%s", code, out, errs)
	}
}

// A file revert refused over conflicts answers --json the same on a
// remote-bound session as on a local one: ok false, code conflict, the
// error, and the plan with its conflicts listed; exit 3 both.
func TestRemoteRevertConflictJSON(t *testing.T) {
	e := newLocalHostEnv(t)
	session := "the first prompt\n:write a.txt\none\n.\n:write b.txt\nbee\n.\n/exit\n"
	answer := func(run func(string, ...string) (int, string, string), ws string, lead ...string) map[string]any {
		code, out, errs := run(session, lead...)
		if code != 0 {
			t.Fatalf("session: %d\n%s\n%s", code, out, errs)
		}
		id := resumeID(out)
		if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("changed by hand\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errs = run("", "--json", "revert", id, "--to", "1", "--files", "--apply")
		if code != ExitRefused {
			t.Fatalf("refused revert: %d\n%s\n%s", code, out, errs)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(strings.ReplaceAll(out, ws, "WS")), &m); err != nil {
			t.Fatalf("refused revert's --json: %v\n%s", err, out)
		}
		if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != "changed by hand\n" {
			t.Fatalf("the refused revert changed a.txt: %q", b)
		}
		return m
	}
	localDir := filepath.Join(t.TempDir(), "local")
	local := answer(e.clientHome(t, localDir), localDir)
	remoteDir := filepath.Join(t.TempDir(), "remote")
	remote := answer(e.clientHome(t, remoteDir, "--ssh-command", e.sshCmd, "--cairn-path", e.cairnPath), e.ws, "--ssh", "devbox:"+e.ws)
	lj, _ := json.Marshal(local)
	rj, _ := json.Marshal(remote)
	if string(lj) != string(rj) {
		t.Fatalf("a refused revert's --json:\nlocal  %s\nremote %s", lj, rj)
	}
	files, _ := local["files"].(map[string]any)
	if local["code"] != "conflict" || files == nil || files["conflicts"] == nil {
		t.Fatalf("the local answer lists no conflicts: %s", lj)
	}
}
