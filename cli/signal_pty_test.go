package cli

import (
	"encoding/json"
	"errors"
	"os/exec"
	"reflect"
	"strings"
	"syscall"
	"testing"
)

// TestProcessSignalRestoresTerminal: a REPL on a terminal told to end by
// SIGTERM or SIGHUP while it reads a line hands the terminal back in the
// mode it found it (echo and line editing on again, the paste and keyboard
// modes it asked for turned off), keeps the line being typed as the
// session's draft, and then prints the resume line.
func TestProcessSignalRestoresTerminal(t *testing.T) {
	e := newProcEnv(t)
	for _, tc := range []struct {
		sig    syscall.Signal
		prompt bool
	}{{syscall.SIGTERM, true}, {syscall.SIGHUP, true}, {syscall.SIGTERM, false}} {
		p := openReplPTY(t)
		cooked := p.State(t)
		cmd := e.command()
		cmd.Stdin, cmd.Stdout, cmd.Stderr = p.TTY, p.TTY, p.TTY
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		p.nextPrompt(t)
		if tc.prompt {
			p.Send(t, "hello\r")
			p.nextPrompt(t)
		}
		p.Send(t, "half typed") // the signal comes while a line is edited
		p.cursorRow(t, "cairn> half typed")
		if err := cmd.Process.Signal(tc.sig); err != nil {
			t.Fatal(err)
		}
		err := waitProcess(t, cmd)
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 128+int(tc.sig) {
			t.Fatalf("%v: exit %v, want %d", tc.sig, err, 128+int(tc.sig))
		}
		if !reflect.DeepEqual(p.State(t), cooked) {
			t.Fatalf("%v: the terminal was left in another mode", tc.sig)
		}
		// A mark written after the process ended comes out after all it
		// wrote.
		if _, err := p.TTY.WriteString("<end>"); err != nil {
			t.Fatal(err)
		}
		out := strings.TrimSuffix(p.WaitSuffix(t, "<end>"), "<end>")
		for _, mode := range []string{"\x1b[?2004l", "\x1b[<1u"} { // paste, keyboard
			if strings.LastIndex(out, mode) < strings.LastIndex(out, "half typed") {
				t.Fatalf("%v: %q not sent after the last drawing: %q", tc.sig, mode, out)
			}
		}
		// The line being typed is kept as the session's draft (seed 000: a
		// typed draft is worth keeping), so a session that held nothing
		// else is recorded too, and its resume line printed.
		i := strings.LastIndex(out, "cairn --resume ")
		if strings.Count(out, "cairn --resume ") != 1 || i < strings.LastIndex(out, "\x1b[?2004l") {
			t.Fatalf("%v: not one resume line after the terminal was handed back: %q", tc.sig, out)
		}
		id := strings.TrimSpace(out[i+len("cairn --resume "):])
		items := map[bool]int{true: 1, false: 0}[tc.prompt]
		found := false
		for _, s := range e.sessions(t) {
			found = found || s.ID == id && s.Items == items
		}
		if !found {
			t.Fatalf("%v: the resume line names %q, not the session written", tc.sig, id)
		}
		if show := e.mustRun(t, "--json", "show", id); !strings.Contains(show, `"draft":{"text":"half typed"}`) {
			t.Fatalf("%v: the line being typed is not the session's draft: %s", tc.sig, show)
		}
	}
}

// TestProcessSignalDuringPicker: SIGTERM while the picker is open hands
// the terminal back too; nothing was resumed, so no resume line.
func TestProcessSignalDuringPicker(t *testing.T) {
	e := newProcEnv(t)
	e.mustRun(t, "prompt", "--new", "one")
	p := openReplPTY(t)
	cooked := p.State(t)
	cmd := e.command("--resume")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p.TTY, p.TTY, p.TTY
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	p.WaitScreen(t, "the picker, the terminal raw", func(rows []string) bool {
		return strings.HasPrefix(strings.Join(rows, "\n"), "filter:") && p.raw(t)
	})
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := waitProcess(t, cmd)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 128+int(syscall.SIGTERM) {
		t.Fatalf("exit %v", err)
	}
	if !reflect.DeepEqual(p.State(t), cooked) {
		t.Fatal("the terminal was left in another mode")
	}
	if _, err := p.TTY.WriteString("<end>"); err != nil {
		t.Fatal(err)
	}
	if out := p.WaitSuffix(t, "<end>"); strings.Contains(out, "cairn --resume") {
		t.Fatalf("a resume line: %q", out)
	}
}

// TestProcessClearedDraftStaysCleared: a draft put back in the input line
// that the person clears (Ctrl-C, or emptied before SIGTERM) is gone from
// the session: the next resume starts with an empty line. cairn show names
// a session with no prompt yet "(untitled)".
func TestProcessClearedDraftStaysCleared(t *testing.T) {
	e := newProcEnv(t)
	// start runs the REPL with args on a new terminal, with the cursor on
	// a prompt whose row reads row.
	start := func(row string, args ...string) (*replPTY, *exec.Cmd) {
		t.Helper()
		p := openReplPTY(t)
		cmd := e.command(args...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = p.TTY, p.TTY, p.TTY
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		p.nextPrompt(t)
		p.cursorRow(t, row)
		return p, cmd
	}
	term := func(cmd *exec.Cmd) {
		t.Helper()
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		waitProcess(t, cmd)
	}
	draft := func() string {
		t.Helper()
		var rec struct {
			ID    string
			Draft *struct{ Text string }
		}
		if err := json.Unmarshal([]byte(e.mustRun(t, "--json", "show", e.sessions(t)[0].ID)), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Draft == nil {
			return ""
		}
		return rec.Draft.Text
	}

	p, cmd := start("cairn>")
	p.Send(t, "half typed")
	p.cursorRow(t, "cairn> half typed")
	term(cmd)
	if d := draft(); d != "half typed" {
		t.Fatalf("draft after SIGTERM: %q", d)
	}
	if show := e.mustRun(t, "show", e.sessions(t)[0].ID); !strings.Contains(show, "\ntitle    (untitled)\n") {
		t.Fatalf("show of a session with no prompt:\n%s", show)
	}

	// Ctrl-C clears the line the draft was put in; Ctrl-D leaves.
	p, cmd = start("cairn> half typed", "--continue")
	p.Send(t, "\x03")
	p.nextPrompt(t)
	p.Send(t, "\x04")
	if err := waitProcess(t, cmd); err != nil {
		t.Fatal(err)
	}
	if d := draft(); d != "" {
		t.Fatalf("draft after Ctrl-C: %q", d)
	}

	// The line emptied by hand, then SIGTERM.
	p, cmd = start("cairn>", "--continue")
	p.Send(t, "again")
	p.cursorRow(t, "cairn> again")
	term(cmd)
	p, cmd = start("cairn> again", "--continue")
	p.Send(t, "\x15")
	p.cursorRow(t, "cairn>")
	term(cmd)
	if d := draft(); d != "" {
		t.Fatalf("draft after the line was emptied and SIGTERM: %q", d)
	}
	_, cmd = start("cairn>", "--continue")
	term(cmd)
}
