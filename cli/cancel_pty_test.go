package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"cairn/cli/cmdbase"
	"cairn/engine"
	"cairn/internal/vfs"
)

// blockTurnMain is cairn whose prompts starting with "block" have a turn
// that runs until it is cancelled: it says so on stderr, then waits. It runs
// as cmd/cairn does (Process), with SIGINT cancelling the process's context.
func blockTurnMain() {
	replTurnHook = func(ctx context.Context, text string) error {
		if !strings.HasPrefix(text, "block") {
			return nil
		}
		fmt.Fprintln(os.Stderr, "[turn running]")
		<-ctx.Done()
		return ctx.Err()
	}
	os.Exit(Process())
}

// startBlockTurnPTY starts cairn-blockturn with args on a new pty that is
// its controlling terminal (its own session), so Ctrl-C typed there reaches
// it as a real terminal's would.
func startBlockTurnPTY(t *testing.T, args ...string) (*replPTY, *exec.Cmd) {
	t.Helper()
	bin, err := exec.LookPath("cairn-blockturn")
	if err != nil {
		t.Fatal(err)
	}
	p := openReplPTY(t)
	cmd := exec.Command(bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p.TTY, p.TTY, p.TTY
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return p, cmd
}

// TestProcessCtrlCCancelsTurn: Ctrl-C typed while a turn runs (the terminal
// cooked, so the kernel sends SIGINT to the REPL, which owns the terminal)
// cancels that turn: the REPL says so and goes on, the prompt is taken out
// of the prompt history (Up skips it), and the session keeps what it
// recorded.
func TestProcessCtrlCCancelsTurn(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	base := []string{"--home", home, "-C", dir}
	p, cmd := startBlockTurnPTY(t, base...)

	p.nextPrompt(t)
	p.Send(t, "first\r")
	p.nextPrompt(t)
	p.Send(t, "block me\r")
	p.Expect(t, "[turn running]")
	if p.raw(t) {
		t.Fatal("the terminal is raw while a turn runs")
	}
	p.Send(t, "\x03")
	p.Expect(t, "Cancelled")
	p.nextPrompt(t)
	p.Send(t, "second\r")
	p.nextPrompt(t)
	// Up walks back over second to first: the cancelled prompt is gone.
	p.Send(t, "\x1b[A")
	p.cursorRow(t, "cairn> second")
	p.Send(t, "\x1b[A")
	p.cursorRow(t, "cairn> first")
	p.Send(t, "\x15\x04") // Ctrl-U empties the line, Ctrl-D leaves
	if err := waitProcess(t, cmd); err != nil {
		t.Fatalf("cairn: %v; drawn: %q", err, p.Output())
	}

	s, err := engine.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got, want := s.History(), []string{"first", "second"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("history %q, want %q", got, want)
	}
	// The session keeps the cancelled prompt it recorded.
	l := listSessions(t, base)
	if len(l) != 1 {
		t.Fatalf("sessions: %+v", l)
	}
	if got, want := transcriptTexts(t, base, l[0].ID), []string{"first", "block me", "second"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("transcript %q, want %q", got, want)
	}
	// Its turn is recorded, labelled cancelled; the others are not.
	var labels [][]string
	for _, line := range strings.Split(strings.TrimSpace(plumb(t, append(base, "trail", "--json", l[0].ID)...)), "\n") {
		var tl struct {
			Kind   string
			Labels []string
		}
		if err := json.Unmarshal([]byte(line), &tl); err != nil {
			t.Fatal(err)
		}
		if tl.Kind == "turn" {
			labels = append(labels, tl.Labels)
		}
	}
	if want := [][]string{{"prompt"}, {"prompt", "cancelled"}, {"prompt"}}; !reflect.DeepEqual(labels, want) {
		t.Fatalf("turn labels %q, want %q", labels, want)
	}
	if out := p.Output(); strings.Contains(out, "cairn:") {
		t.Fatalf("an error was shown: %q", out)
	}
}

// TestProcessCtrlCTwice: a Ctrl-C cancels only the line under way. The
// lines after it run as before (a file tool changes its file, a prompt is
// kept in the history), and a second Ctrl-C cancels the next turn again.
// The process's own context is cancelled by the first SIGINT for good, so a
// REPL that ran its lines under it ran every later line cancelled.
func TestProcessCtrlCTwice(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	p, cmd := startBlockTurnPTY(t, "--home", home, "-C", dir)

	p.nextPrompt(t)
	p.Send(t, "block one\r")
	p.Expect(t, "[turn running]")
	p.Send(t, "\x03")
	p.Expect(t, "Cancelled")
	p.nextPrompt(t)
	p.Send(t, ":write a.txt\r")
	p.Send(t, "new\r.\r")
	p.Expect(t, "Changed a.txt")
	p.nextPrompt(t)
	p.Send(t, "kept\r")
	p.nextPrompt(t)
	p.Send(t, "block two\r")
	p.Expect(t, "[turn running]")
	p.Send(t, "\x03")
	p.nextPrompt(t)
	p.Send(t, "\x04")
	if err := waitProcess(t, cmd); err != nil {
		t.Fatalf("cairn: %v; drawn: %q", err, p.Output())
	}
	if b, err := os.ReadFile(filepath.Join(dir, "a.txt")); err != nil || string(b) != "new\n" {
		t.Fatalf("a.txt %q, %v; drawn: %q", b, err, p.Output())
	}
	if out := p.Output(); strings.Count(out, "Cancelled") != 2 || strings.Contains(out, "context canceled") {
		t.Fatalf("drawn: %q", out)
	}
	s, err := engine.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got, want := s.History(), []string{"kept"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("history %q, want %q", got, want)
	}
}

// TestProcessSIGINTWithoutTerminal: without a terminal there is no prompt to
// go back to, so SIGINT cancels the line under way and ends the REPL as
// SIGTERM does: the session is closed, the resume line printed, exit 130.
// It used to cancel every line still to come and read on.
func TestProcessSIGINTWithoutTerminal(t *testing.T) {
	bin, err := exec.LookPath("cairn-blockturn")
	if err != nil {
		t.Fatal(err)
	}
	home, dir := t.TempDir(), t.TempDir()
	cmd := exec.Command(bin, "--home", home, "-C", dir)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var out bytes.Buffer
	cmd.Stdout = &out
	errr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	if _, err := io.WriteString(in, "first\nblock me\n"); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(errr)
	for sc.Scan() && sc.Text() != "[turn running]" {
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, errr)
	err = waitProcess(t, cmd) // stdin stays open: only the signal ends it
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit %v, want 130; stdout %q", err, out.String())
	}
	if !strings.Contains(out.String(), "cairn --resume ") {
		t.Fatalf("no resume line: %q", out.String())
	}
}

// TestREPLCancelledToolChangesNothing: a file tool line whose context is
// cancelled (Ctrl-C while it runs) says so, and the file is as it was: the
// tools are atomic.
func TestREPLCancelledToolChangesNothing(t *testing.T) {
	files := vfs.NewMem()
	store, err := engine.OpenFS(vfs.NewMem(), "/mem", engine.WithWorkspaceFS(func(string) (vfs.FS, error) { return files, nil }))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ws, err := store.Workspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var out, errw bytes.Buffer
	g := &Globals{Globals: cmdbase.Globals{Ctx: context.Background(), Stdout: &out, Stderr: &errw}}
	r := &repl{g: g, out: &out, errw: &errw, store: store, ws: ws}
	r.startNew()
	defer r.closeSession()
	if r.handle(g.Ctx, ":write a.txt\nold") {
		t.Fatal(":write ended the REPL")
	}
	cancelled, cancel := context.WithCancel(g.Ctx)
	cancel()
	for _, line := range []string{":write a.txt\nnew", ":edit a.txt old new", ":rm a.txt"} {
		out.Reset()
		r.handle(cancelled, line)
		if !strings.Contains(out.String(), "Cancelled; nothing was changed.") {
			t.Fatalf("%q: %q", line, out.String())
		}
		if b, err := vfs.ReadFile(files, "a.txt"); err != nil || string(b) != "old\n" {
			t.Fatalf("%q: a.txt %q, %v", line, b, err)
		}
	}
}
