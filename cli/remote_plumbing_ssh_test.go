package cli

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// The plumbing on a remote-bound session through the real sshd: each
// command reconnects with the ssh command line and host cairn the session
// keeps and runs on the host session; the host's bytes are checked after
// each command that changes them, and the answers name the client
// session.
func TestSSHPlumbing(t *testing.T) {
	e := newSSHEnv(t)
	run := e.client(t)
	first := "first\t\x01 bytes\n" + strings.Repeat("kept line\n", 300)
	code, out, errs := run("the first prompt\n:write a.txt\n"+first+".\nthe second prompt\n:edit a.txt first second\n"+
		":exec printf 'by a line' > c.txt\n/exit\n",
		"--ssh", e.srv.Target()+":"+e.ws, "--ssh-command", e.sshCmd, "--cairn-path", e.cairnPath)
	if code != 0 {
		t.Fatalf("remote session: %d\n%s\n%s", code, out, errs)
	}
	id := out[strings.LastIndex(out, "cairn --resume ")+len("cairn --resume ") : len(out)-1]
	second := strings.Replace(first, "first", "second", 1)
	if e.read("a.txt") != second || e.read("c.txt") != "by a line" {
		t.Fatalf("the host's files after the session: a %q c %q", e.read("a.txt")[:20], e.read("c.txt"))
	}

	code, out, errs = run("", "diff", id, "2")
	if code != 0 || !strings.Contains(out, "changed (2 records: edit, exec):") || !strings.Contains(out, "create  c.txt  +1 −0") ||
		!strings.Contains(out, "\n-first\t\\x01 bytes\n+second\t\\x01 bytes\n") {
		t.Fatalf("diff: %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = run("", "--json", "shells", id)
	var shells []struct {
		Cmd  string `json:"cmd"`
		Exit int    `json:"exit"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &shells) != nil || len(shells) != 1 || !strings.Contains(shells[0].Cmd, "printf 'by a line'") {
		t.Fatalf("shells: %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = run("", "--json", "snapshots", "--session", id)
	var snaps struct {
		Session   string `json:"session"`
		Cursor    int    `json:"cursor"`
		Snapshots []struct {
			Tool string `json:"tool"`
		} `json:"snapshots"`
		Records []struct {
			Tool string `json:"tool"`
		} `json:"records"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &snaps) != nil || snaps.Session != id || snaps.Cursor != 2 || len(snaps.Snapshots) != 2 || len(snaps.Records) != 1 {
		t.Fatalf("snapshots: %d\n%s\n%s", code, out, errs)
	}

	// undo and redo, byte for byte on the host.
	code, out, errs = run("", "undo", "--session", id)
	if code != 0 || !strings.Contains(out, "(edit): restored a.txt.") || e.read("a.txt") != first {
		t.Fatalf("undo: %d\n%s\n%s\nfile %q", code, out, errs, e.read("a.txt")[:20])
	}
	code, out, errs = run("", "redo", "--session", id)
	if code != 0 || e.read("a.txt") != second {
		t.Fatalf("redo: %d\n%s\n%s", code, out, errs)
	}
	code, _, errs = run("", "redo", "--session", id)
	if code != ExitRefused || !strings.Contains(errs, "nothing to redo") {
		t.Fatalf("redo with nothing to redo: %d %s", code, errs)
	}

	// A file revert of the second turn, then unrevert.
	code, out, errs = run("", "revert", id, "--to", "2", "--files")
	if code != 0 || !strings.Contains(out, "would revert 2 files: create 0, replace 1, delete 1") || e.read("a.txt") != second {
		t.Fatalf("revert preview: %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = run("", "revert", id, "--to", "2", "--files", "--apply")
	if code != 0 || e.read("a.txt") != first || e.read("c.txt") != "<absent>" {
		t.Fatalf("revert: %d\n%s\n%s\na %q c %q", code, out, errs, e.read("a.txt")[:20], e.read("c.txt"))
	}
	code, out, errs = run("", "unrevert", id)
	if code != 0 || !strings.Contains(out, "put back 2 files") || e.read("a.txt") != second || e.read("c.txt") != "by a line" {
		t.Fatalf("unrevert: %d\n%s\n%s", code, out, errs)
	}

	// tool write: a turn of its own on the host, undone by undo.
	code, out, errs = run("by the tool\x00\n", "tool", "--session", id, "write", "t.txt")
	if code != 0 || !strings.Contains(out, "Changed t.txt (snapshot ") || e.read("t.txt") != "by the tool\x00\n" {
		t.Fatalf("tool write: %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = run("", "undo", "--session", id)
	if code != 0 || e.read("t.txt") != "<absent>" {
		t.Fatalf("undo of tool write: %d\n%s\n%s", code, out, errs)
	}

	// prompt: appended to the conversation here, after the host's checks.
	code, out, errs = run("", "--json", "prompt", "--session", id, "the third prompt")
	if code != 0 || !strings.Contains(out, `{"session":"`+id+`","item":"i-`) {
		t.Fatalf("prompt: %d\n%s\n%s", code, out, errs)
	}

	// The host session held by another connection (a REPL's): a read
	// works, as a local one does beside a REPL; a write is busy, naming
	// this session and the host.
	held := e.mustDial()
	hs, err := held.Session(context.Background(), id, held.Binding(), false)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs = run("", "diff", id, "2")
	if code != 0 || !strings.Contains(out, "modify  a.txt  +1 −1") {
		t.Fatalf("diff while the host session is held: %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = run("", "undo", "--session", id)
	if code != ExitBusy || !strings.Contains(errs, "session "+id+" is open on "+e.srv.Target()+" in another cairn") {
		t.Fatalf("undo while the host session is held: %d\n%s\n%s", code, out, errs)
	}
	if err := hs.Close(context.Background()); err != nil {
		t.Fatal(err)
	}

	// The workspace replaced: refused by name, nothing written there.
	if err := os.RemoveAll(e.ws); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(e.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, errs = run("", "undo", "--session", id)
	if code != ExitFailed || !strings.Contains(errs, "was replaced (generation 2 since ") {
		t.Fatalf("undo on a replaced workspace: %d\n%s\n%s", code, out, errs)
	}
	if ents, _ := os.ReadDir(e.ws); len(ents) != 0 {
		t.Fatalf("the refused undo changed the new workspace: %v", ents)
	}
}
