package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"cairn/cli/cmdbase"
	"cairn/internal/usermsg"
)

// Every message cairn prints for a person, in every test of this package,
// is held to one rule (usermsg.Leak): no package name, no system call, no
// temp file's name. The tests reach the error paths (script tests, the
// --json error tests, the REPL's full-disk and fault tests, the MCP and
// hook processes); heard, the printer's hook, hears each message there,
// and checkMessages looks at all of them once the tests have run. A
// cairn process a test starts (a script's cairn, a process test's, the
// MCP server) is this test binary under another name: it writes what it
// heard to a file of its own in the folder heardEnv names.
const heardEnv = "CAIRN_TEST_HEARD"

// messagesChecked runs the tests, then checks every message heard.
type messagesChecked struct{ m *testing.M }

var heardHere struct {
	sync.Mutex
	msgs []string
}

func (c messagesChecked) Run() int {
	dir, err := os.MkdirTemp("", "cairn-heard-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	os.Setenv(heardEnv, dir)
	hear(func(msg string) {
		heardHere.Lock()
		heardHere.msgs = append(heardHere.msgs, msg)
		heardHere.Unlock()
	})
	code := c.m.Run()
	hear(nil)
	msgs := heardHere.msgs
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		msgs = append(msgs, strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")...)
	}
	if bad := leaks(msgs); len(bad) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: %d of the %d messages the tests made cairn print show its insides:\n%s\n",
			len(bad), len(msgs), strings.Join(bad, "\n"))
		return 1
	}
	return code
}

// leaks are the messages that break usermsg.Leak's rule, each once, with
// what it shows.
func leaks(msgs []string) []string {
	var bad []string
	for _, m := range msgs {
		if l := usermsg.Leak(m); l != "" {
			bad = append(bad, fmt.Sprintf("  %q  (shows %q)", m, l))
		}
	}
	slices.Sort(bad)
	return slices.Compact(bad)
}

// hear sets the printer's hook.
func hear(f func(string)) { cmdbase.Hear(f) }

// hearInFile is what a cairn process a test started does with what it
// hears: each message a line of a file of its own, written as it is heard
// (the process may end by os.Exit, or be killed).
func hearInFile() {
	dir := os.Getenv(heardEnv)
	if dir == "" {
		return
	}
	f, err := os.OpenFile(filepath.Join(dir, fmt.Sprint(os.Getpid())), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return
	}
	hear(func(msg string) { f.WriteString(strings.ReplaceAll(msg, "\n", " ") + "\n") })
}

// TestLeaksFound: the rule the check holds every message to finds each
// kind of inside in a message as cairn printed it before it kept them out.
func TestLeaksFound(t *testing.T) {
	bad := leaks([]string{
		"cairn: write record: write /h/workspaces/k/sessions/.x.json.24129-95f95d192cba9a38.cairn-tmp: no space left on device",
		"cairn: this session cannot be recorded for now (engine: write record: disk full)",
		"cairn: revert: read sub/g.txt: statat sub/g.txt: path escapes from parent",
		"cairn: write record: cannot write workspaces/k/sessions/x.json: disk full",
	})
	if len(bad) != 3 {
		t.Errorf("leaks found %d of 3:\n%s", len(bad), strings.Join(bad, "\n"))
	}
}

// TestPrinterHears: the hook hears what a person reads, where the
// command prints it: a failed command's stderr line and its --json error,
// and a notice of a session (through the plumbing's notice printer).
func TestPrinterHears(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	var out, errw bytes.Buffer
	code := Main(context.Background(), []string{"--home", home, "-C", dir, "--json", "show", "nosuch"}, strings.NewReader(""), &out, &errw)
	if code == ExitOK {
		t.Fatal("show nosuch passed")
	}
	line := strings.TrimSuffix(errw.String(), "\n")
	var answer struct{ Error string }
	if err := json.Unmarshal(out.Bytes(), &answer); err != nil || answer.Error == "" {
		t.Fatalf("--json answer %q: %v", out.String(), err)
	}
	heardHere.Lock()
	msgs := slices.Clone(heardHere.msgs)
	heardHere.Unlock()
	for _, want := range []string{line, answer.Error} {
		if !slices.Contains(msgs, want) {
			t.Errorf("the hook did not hear %q", want)
		}
	}
	var notes bytes.Buffer
	g := &Globals{Globals: cmdbase.Globals{Stderr: cmdbase.HeardWriter(&notes, true)}}
	g.SessionOptions().Notice("engine: a notice: write /h/.x.json.12-0123456789abcdef.cairn-tmp: no space left on device")
	if got, want := notes.String(), "cairn: a notice: cannot write /h/x.json: disk full\n"; got != want {
		t.Errorf("notice printed %q, want %q", got, want)
	}
	heardHere.Lock()
	defer heardHere.Unlock()
	if !slices.Contains(heardHere.msgs, "cairn: a notice: cannot write /h/x.json: disk full") {
		t.Error("the hook did not hear the notice")
	}
}
