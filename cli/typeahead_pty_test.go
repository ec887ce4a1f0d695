package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestPTYTypedAhead: what comes in the same burst as the Enter that ends a
// line reaches the prompt after it, as from a paste of several lines or
// typing faster than the prompt comes back. Each burst here is one write:
// two prompts; a :write, its lines and the "." that ends them, a command
// and a prompt; a question's answer and a prompt; in a second run, the
// picker's Enter and the first prompt after it. A line typed while a turn
// runs, with the terminal cooked and not echoing, is a prompt too, and so is
// one typed after a shell line of the user's own that reads its input.
func TestPTYTypedAhead(t *testing.T) {
	dir, other, moved := t.TempDir(), t.TempDir(), t.TempDir()
	home := t.TempDir()
	base := []string{"--home", home, "-C", dir}
	plumb(t, "--home", home, "-C", other, "prompt", "--new", "elsewhere")
	entered, release := make(chan struct{}), make(chan struct{})
	replTurnHook = func(ctx context.Context, text string) error {
		if text == "wait" {
			close(entered)
			<-release
		}
		return nil
	}
	t.Cleanup(func() { replTurnHook = nil })
	p := openReplPTY(t)
	done := p.runMain(&stateWatch{p: p}, base...)
	p.nextPrompt(t)
	p.Send(t, "one\rtwo\r")
	p.prompts++
	p.nextPrompt(t)
	p.Send(t, ":write f.txt\rhello\r.\r/rename ahead\rthree\r")
	p.prompts += 2
	p.nextPrompt(t)
	p.Send(t, "/migrate-sessions "+other+" "+moved+"\ry\rfour\r")
	p.prompts++
	p.nextPrompt(t)
	// A line typed while a prompt's turn runs (the terminal cooked).
	p.Send(t, "wait\r")
	<-entered
	p.Send(t, "after\r")
	p.awaitQueued(t, len("after\n")) // the terminal has it (it does not echo)
	close(release)
	p.prompts++
	p.nextPrompt(t)
	// The user's own shell line reads the null device, not the terminal:
	// cat ends at once, and the line typed after it is the next prompt.
	p.Send(t, "!cat\rsix\r")
	p.Expect(t, "your own line, no record")
	p.prompts++
	p.nextPrompt(t)
	p.Send(t, "\x04")
	if c := p.awaitExit(t, done); c != 0 {
		t.Fatalf("exit %d", c)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "f.txt")); err != nil || string(b) != "hello\n" {
		t.Fatalf("f.txt: %q, %v", b, err)
	}
	if l := listSessions(t, []string{"--home", home, "-C", moved}); len(l) != 1 || l[0].Title != "elsewhere" {
		t.Fatalf("the answer after the question did not move the session: %+v", l)
	}
	l := listSessions(t, base)
	if len(l) != 1 || l[0].Title != "ahead" {
		t.Fatalf("sessions: %+v", l)
	}
	want := []string{"one", "two", "three", "four", "wait", "after", "six"}
	if got := prompts(t, base, l[0].ID); !reflect.DeepEqual(got, want) {
		t.Fatalf("prompts %q, want %q", got, want)
	}

	// The picker: Enter and the next line in one write.
	done = p.runMain(&stateWatch{p: p}, append(base, "--resume")...)
	p.Expect(t, "Enter choose, Esc leave") // the picker is drawn
	p.Send(t, "\rfive\r")
	p.Expect(t, `Resumed "ahead"`)
	p.prompts++
	p.nextPrompt(t)
	p.Send(t, "\x04")
	if c := p.awaitExit(t, done); c != 0 {
		t.Fatalf("exit %d", c)
	}
	if got := prompts(t, base, l[0].ID); !reflect.DeepEqual(got, append(want, "five")) {
		t.Fatalf("after the picker, prompts %q, want %q", got, append(want, "five"))
	}
}

// prompts is the text of the prompts in session id's transcript.
func prompts(t *testing.T, base []string, id string) []string {
	t.Helper()
	var items []struct{ Type, Text string }
	if err := json.Unmarshal([]byte(plumb(t, append(base, "transcript", "--json", id)...)), &items); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, it := range items {
		if it.Type == "user" {
			out = append(out, it.Text)
		}
	}
	return out
}

// TestPTYTypedWhileRunningNotEchoed: keys typed while a command runs are
// not echoed into what it prints: they wait in the terminal, and the next
// prompt starts with them (drawn there once).
func TestPTYTypedWhileRunningNotEchoed(t *testing.T) {
	dir := t.TempDir()
	base := []string{"--home", t.TempDir(), "-C", dir}
	p := openReplPTY(t)
	done := p.runMain(&stateWatch{p: p}, base...)
	p.nextPrompt(t)
	p.Send(t, ":exec echo started; while [ ! -e go ]; do sleep 0.01; done; echo finished\r")
	p.Expect(t, "started")
	p.Send(t, "typed ahead\r")
	p.awaitQueued(t, len("typed ahead\n"))
	if screen := strings.Join(p.Screen(), "\n"); strings.Contains(screen, "typed ahead") {
		t.Fatalf("the keys were echoed while the command ran:\n%s", screen)
	}
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	p.Expect(t, "finished")
	p.prompts++
	p.nextPrompt(t)
	p.Send(t, "\x04")
	if c := p.awaitExit(t, done); c != 0 {
		t.Fatalf("exit %d", c)
	}
	screen := strings.Join(p.Screen(), "\n")
	if strings.Count(screen, "typed ahead") != 1 || !strings.Contains(screen, "cairn> typed ahead") {
		t.Fatalf("the line typed ahead is not shown once, at its prompt:\n%s", screen)
	}
	l := listSessions(t, base)
	if got := prompts(t, base, l[0].ID); !reflect.DeepEqual(got, []string{"typed ahead"}) {
		t.Fatalf("prompts %q", got)
	}
}
