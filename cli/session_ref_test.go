package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/engine"
)

// refEnv is a state folder with one session of two prompts in a directory,
// and a way to run the cairn command there.
type refEnv struct {
	home, dir, id string
}

func newRefEnv(t *testing.T) *refEnv {
	t.Helper()
	e := &refEnv{home: filepath.Join(t.TempDir(), "home"), dir: t.TempDir()}
	for _, p := range []string{"first", "second"} {
		code, out, errs := e.run(t, "", "prompt", p)
		if code != 0 {
			t.Fatalf("prompt: %d %s", code, errs)
		}
		e.id = strings.Fields(out)[0]
	}
	return e
}

func (e *refEnv) run(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var o, errw bytes.Buffer
	code := Main(context.Background(), append([]string{"--home", e.home, "-C", e.dir}, args...), strings.NewReader(stdin), &o, &errw)
	return code, o.String(), errw.String()
}

// items is how many items the session's transcript holds.
func (e *refEnv) items(t *testing.T) int {
	t.Helper()
	st, err := engine.Open(e.home)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ws, err := st.Workspace(e.dir)
	if err != nil {
		t.Fatal(err)
	}
	v, err := ws.Read(context.Background(), e.id)
	if err != nil {
		t.Fatal(err)
	}
	return len(v.Transcript())
}

// refusedUsage runs cairn with args (and input on stdin) and fails unless
// it exits as bad usage, saying want, with nothing on stdout.
func (e *refEnv) refusedUsage(t *testing.T, want string, args ...string) {
	t.Helper()
	code, out, errs := e.run(t, "hello\n", args...)
	if code != ExitUsage || !strings.Contains(errs, want) {
		t.Errorf("cairn %q: exit %d, stderr %q, want exit %d and %q", args, code, errs, ExitUsage, want)
	}
	if out != "" {
		t.Errorf("cairn %q printed %q", args, out)
	}
}

// unchanged fails unless the session still holds before items and is the
// only one.
func (e *refEnv) unchanged(t *testing.T, before int) {
	t.Helper()
	if got := e.items(t); got != before {
		t.Fatalf("the session holds %d items after the refused commands, had %d", got, before)
	}
	code, out, _ := e.run(t, "", "--json", "sessions")
	if code != 0 || strings.Count(out, `"id"`) != 1 {
		t.Fatalf("sessions after the refused commands: %d %s", code, out)
	}
}

// An empty session reference is refused as bad usage before anything is
// read or written: a script with an unset variable must not act on the
// newest session (or start a new one).
func TestEmptySessionReference(t *testing.T) {
	e := newRefEnv(t)
	before := e.items(t)
	for _, args := range [][]string{
		{"show", ""},
		{"show", "  "},
		{"transcript", ""},
		{"fork", ""},
		{"rename", "", "x"},
		{"prompt", "--session", "", "third"},
		{"prompt", "--session=", "third"},
		{"append", "--session", "", "--type", "assistant", "x"},
		{"undo", "--session", ""},
		{"redo", "--session", ""},
		{"snapshots", "--session", ""},
		{"tool", "--session", "", "rm", "a.txt"},
		{"-r", ""},
		{"--resume", ""},
		{"resume", ""},
		{"pair", "--scope", "attach", "--sessions", "a,,b"},
	} {
		e.refusedUsage(t, "empty session reference", args...)
	}
	e.unchanged(t, before)
}

// An empty item reference (--at "", --parent "", --call "") is refused as bad
// usage before anything is read or written: left out, these flags mean the
// head (or the turn's prompt), and a script's unset variable must not
// silently mean the same.
func TestEmptyItemReference(t *testing.T) {
	e := newRefEnv(t)
	before := e.items(t)
	for _, args := range [][]string{
		{"fork", e.id, "--at", ""},
		{"fork", e.id, "--at="},
		{"revert", e.id, "--to", ""},
		{"compact", e.id, "--up-to", ""},
		{"append", "--session", e.id, "--type", "assistant", "--parent", "", "x"},
		{"append", "--session", e.id, "--type", "tool_result", "--call", "", "x"},
		{"tool", "--session", e.id, "--call", "", "write", "a.txt"},
	} {
		e.refusedUsage(t, "empty item reference", args...)
	}
	e.unchanged(t, before)
	if _, err := os.Stat(filepath.Join(e.dir, "a.txt")); !os.IsNotExist(err) {
		t.Fatalf("a.txt was written: %v", err)
	}
}

// -C naming a file is refused as bad usage, and nothing is created.
func TestChdirToFile(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	file := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"prompt", "--new", "hi"}, {"where"}, {"sessions"}, {}} {
		var o, errw bytes.Buffer
		code := Main(context.Background(), append([]string{"--home", home, "-C", file}, args...), strings.NewReader("hi\n"), &o, &errw)
		if code != ExitUsage || !strings.Contains(errw.String(), "is not a directory") {
			t.Errorf("cairn -C FILE %q: exit %d, stderr %q", args, code, errw.String())
		}
	}
	if _, err := os.Stat(filepath.Join(home, "workspaces")); !os.IsNotExist(err) {
		t.Fatalf("-C FILE made a workspace folder: %v", err)
	}
}

// -C naming a directory that does not exist is bad usage too (a typo, not
// a failure of cairn), and nothing is created.
func TestChdirToMissingDir(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	missing := filepath.Join(t.TempDir(), "nope")
	for _, args := range [][]string{{"prompt", "--new", "hi"}, {"where"}, {"sessions"}, {"--json", "where"}, {}} {
		var o, errw bytes.Buffer
		code := Main(context.Background(), append([]string{"--home", home, "-C", missing}, args...), strings.NewReader("hi\n"), &o, &errw)
		if code != ExitUsage || !strings.Contains(errw.String(), "no such file or directory") {
			t.Errorf("cairn -C MISSING %q: exit %d, stderr %q", args, code, errw.String())
		}
	}
	if _, err := os.Stat(filepath.Join(home, "workspaces")); !os.IsNotExist(err) {
		t.Fatalf("-C MISSING made a workspace folder: %v", err)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Fatalf("-C MISSING made the directory: %v", err)
	}
}

// A fork at an item the session does not hold names the item, not a
// missing session.
func TestForkAtUnknownItem(t *testing.T) {
	e := newRefEnv(t)
	code, _, errs := e.run(t, "", "fork", e.id, "--at", "i-0000")
	want := `no item "i-0000" in session ` + e.id
	if code != ExitFailed || !strings.Contains(errs, want) || strings.Contains(errs, "no such session") {
		t.Fatalf("fork --at i-0000: exit %d, stderr %q, want %q", code, errs, want)
	}
}

// An empty SNAP is refused as bad usage and restores nothing: every
// snapshot id starts with "", so with one snapshot it named that one and
// undid it (a script's unset variable undoing the whole stack).
func TestEmptySnapshotReference(t *testing.T) {
	e := newRefEnv(t)
	file := filepath.Join(e.dir, "a.txt")
	if code, _, errs := e.run(t, "new\n", "tool", "write", "a.txt"); code != 0 {
		t.Fatalf("write: %d %s", code, errs)
	}
	for _, args := range [][]string{
		{"snapshots", "restore", ""},
		{"snapshots", "restore", "  "},
		{"--json", "snapshots", "restore", ""},
	} {
		code, out, errs := e.run(t, "", args...)
		if code != ExitUsage || !strings.Contains(errs, "empty snapshot reference") {
			t.Errorf("cairn %q: exit %d, stderr %q", args, code, errs)
		}
		if args[0] != "--json" && out != "" {
			t.Errorf("cairn %q printed %q", args, out)
		}
		if b, err := os.ReadFile(file); err != nil || string(b) != "new\n" {
			t.Fatalf("after cairn %q the file holds %q (%v)", args, b, err)
		}
	}
	l := &engine.SnapshotList{Snapshots: []engine.SnapshotInfo{{ID: "mx1-aaaa"}}}
	if id, msg := snapshotRef(l, "", "/snapshots"); id != "" || msg == "" {
		t.Fatalf("snapshotRef of \"\": %q %q", id, msg)
	}
}

// A full id of a session of another directory is not resumed here (a
// session belongs to the directory it ran in), but the error says where
// it is, for the REPL's -r and for plumbing alike; a prefix is not
// looked for elsewhere.
func TestSessionOfAnotherDirectoryNamed(t *testing.T) {
	e := newRefEnv(t)
	here := &refEnv{home: e.home, dir: t.TempDir()}
	for _, args := range [][]string{
		{"-r", e.id},
		{"show", e.id},
		{"undo", "--session", e.id},
	} {
		code, _, errs := here.run(t, "", args...)
		if code != ExitFailed || !strings.Contains(errs, "no such session") || !strings.Contains(errs, "it is a session of "+e.dir) {
			t.Errorf("cairn %q in another directory: exit %d, stderr %q", args, code, errs)
		}
	}
	if _, _, errs := here.run(t, "", "show", e.id[:8]); strings.Contains(errs, "it is a session of") {
		t.Errorf("a prefix was looked for elsewhere: %q", errs)
	}
}

// A reference that names nothing the user has fails the same way however
// it is spelled: an item as an unknown id or as N past the head path, a
// session as an unknown id, prefix or title — not found, exit 1, code
// "not_found", nothing changed. An unknown snapshot, as a # or an id, is
// refused (exit 3), as the exit codes say.
func TestUnknownReferenceSameExitAnySpelling(t *testing.T) {
	e := newRefEnv(t)
	before := e.items(t)
	want := func(code int, word string, args ...string) {
		t.Helper()
		got, out, errs := e.run(t, "", append([]string{"--json"}, args...)...)
		var obj struct{ Code string }
		json.Unmarshal([]byte(out), &obj)
		if got != code || obj.Code != word {
			t.Errorf("cairn %q: exit %d code %q (%q), want exit %d code %q", args, got, obj.Code, errs, code, word)
		}
	}
	for _, ref := range []string{"i-0000000000000000", "99", "0"} {
		want(ExitFailed, "not_found", "fork", e.id, "--at", ref)
		want(ExitFailed, "not_found", "revert", e.id, "--to", ref)
		want(ExitFailed, "not_found", "compact", e.id, "--up-to", ref)
		want(ExitFailed, "not_found", "attachment", "--list", e.id, ref)
		want(ExitFailed, "not_found", "append", "--session", e.id, "--type", "assistant", "--parent", ref, "x")
		want(ExitFailed, "not_found", "append", "--session", e.id, "--type", "tool_result", "--call", ref, "x")
	}
	for _, ref := range []string{"00000000-0000-0000-0000-000000000000", "ffff", "no such title"} {
		want(ExitFailed, "not_found", "show", ref)
		want(ExitFailed, "not_found", "append", "--session", ref, "--type", "assistant", "x")
	}
	for _, ref := range []string{"#99", "99", "snap-0000"} {
		want(ExitRefused, "refused", "snapshots", "restore", "--session", e.id, ref)
	}
	if n := e.items(t); n != before {
		t.Fatalf("refused references changed the session: %d items, was %d", n, before)
	}
}
