package cli

import (
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestProcessCtrlZSuspends: Ctrl-Z at the prompt stops cairn as it stops
// any program run from a shell with job control (bash here, on its own
// terminal); the shell's fg brings it back with the half-typed line as it
// was, drawn again, and the REPL goes on.
func TestProcessCtrlZSuspends(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal("bash runs the shell side of this test:", err)
	}
	if _, err := exec.LookPath("cairn"); err != nil {
		t.Fatal(err)
	}
	home, dir := t.TempDir(), t.TempDir()
	p := openReplPTY(t)
	sh := exec.Command(bash, "--norc", "--noprofile", "-i")
	sh.Env = append(os.Environ(), "PS1=$ ", "TERM=xterm")
	sh.Stdin, sh.Stdout, sh.Stderr = p.TTY, p.TTY, p.TTY
	sh.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sh.Process.Kill(); sh.Wait() })
	p.Expect(t, "$ ")
	p.Send(t, "cairn --home "+home+" -C "+dir+"\r")
	p.nextPrompt(t)
	p.Send(t, "half typed")
	p.cursorRow(t, "cairn> half typed")
	p.Send(t, "\x1a")
	p.Expect(t, "Stopped")
	p.Expect(t, "$ ")
	// Nothing is drawn between the Ctrl-Z and the stop: the line shows
	// once above the shell's lines.
	rows := p.Screen()
	stopped := slices.IndexFunc(rows, func(r string) bool { return strings.Contains(r, "Stopped") })
	if n := slices.IndexFunc(rows[1:stopped], func(r string) bool { return strings.HasPrefix(r, "cairn>") }); n >= 0 && slices.ContainsFunc(rows[n+2:stopped], func(r string) bool { return strings.HasPrefix(r, "cairn>") }) {
		t.Fatalf("the line was drawn again before the stop:\n%s", strings.Join(rows, "\n"))
	}
	p.Send(t, "fg\r")
	p.nextPrompt(t) // the line drawn again, below the shell's lines
	p.cursorRow(t, "cairn> half typed")
	if _, y := p.Cursor(); y <= stopped {
		t.Fatalf("the line is not drawn below the shell's lines:\n%s", strings.Join(p.Screen(), "\n"))
	}
	p.Send(t, ", then more\r")
	p.nextPrompt(t)
	p.Send(t, "\x04")
	p.Expect(t, "cairn --resume ")
	p.Expect(t, "$ ")
	p.Send(t, "exit\r")
	if err := waitProcess(t, sh); err != nil {
		t.Fatalf("bash: %v; drawn: %q", err, p.Output())
	}
	base := []string{"--home", home, "-C", dir}
	l := listSessions(t, base)
	if len(l) != 1 {
		t.Fatalf("sessions: %+v", l)
	}
	if got, want := transcriptTexts(t, base, l[0].ID), []string{"half typed, then more"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("transcript %q, want %q; drawn: %q", got, want, p.Output())
	}
	if out := p.Output(); strings.Contains(out, "cairn:") {
		t.Fatalf("an error was shown: %q", out)
	}
}
