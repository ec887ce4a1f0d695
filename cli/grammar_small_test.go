package cli

import (
	"bytes"
	"cairn/cli/hookcmd"
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
)

// TestSmallGrammarsAnswerAsCLI: Main parses `cairn hook …` and `cairn
// --version` with a grammar of that command alone (grammarFor), which must
// be CLI's: the same field types and tags, and for each command line,
// good or bad, the same exit code and the same bytes on stdout and stderr
// as CLI's whole grammar gives.
func TestSmallGrammarsAnswerAsCLI(t *testing.T) {
	whole := reflect.TypeOf(CLI{})
	for _, small := range []any{hookCLI{}, versionCLI{}} {
		st := reflect.TypeOf(small)
		for i := range st.NumField() {
			f := st.Field(i)
			w, ok := whole.FieldByName(f.Name)
			if !ok || w.Type != f.Type || w.Tag != f.Tag || w.Anonymous != f.Anonymous {
				t.Fatalf("%s.%s is not CLI's: %v %q, CLI's %v %q (found %v)", st.Name(), f.Name, f.Type, f.Tag, w.Type, w.Tag, ok)
			}
		}
	}

	home, dir := t.TempDir(), t.TempDir()
	t.Setenv("CAIRN_HOME", home)
	t.Chdir(dir)
	run := func(grammar any, g *Globals, in string, args []string) string {
		var out, errw bytes.Buffer
		code := mainGrammar(context.Background(), grammar, g, args, strings.NewReader(in), &out, &errw, nil)
		return fmt.Sprintf("exit %d\nstdout %s\nstderr %s", code, out.String(), errw.String())
	}
	lines := smallGrammarLines(dir)
	events := []string{"", "{not json", `{"hook_event_name":"Nope","session_id":"s1","cwd":"` + dir + `"}`}
	for _, args := range lines {
		grammar, g := grammarFor(args)
		if _, ok := grammar.(*CLI); ok {
			t.Fatalf("%q is parsed with the whole grammar", args)
		}
		for _, in := range events {
			c := &CLI{}
			want := run(c, &c.Globals, in, args)
			grammar, g = grammarFor(args)
			if got := run(grammar, g, in, args); got != want {
				t.Fatalf("cairn %q (stdin %q): small grammar\n%s\nwhole grammar\n%s", args, in, got, want)
			}
			if len(args) < 2 || args[1] == "install" || args[1] == "--help" {
				break
			}
		}
	}
	for _, args := range [][]string{{}, {"--json", "hook", "codex"}, {"--version", "--json"}, {"sessions"}, {"-C", dir, "hook", "codex"}} {
		if grammar, _ := grammarFor(args); reflect.TypeOf(grammar) != reflect.TypeOf(&CLI{}) {
			t.Fatalf("%q is parsed with %T", args, grammar)
		}
	}
}

// smallGrammarLines are the command lines, good and bad, a small grammar
// must answer as the whole one does; dir is the working directory.
func smallGrammarLines(dir string) [][]string {
	return [][]string{
		{"--version"},
		{"hook"},
		{"hook", "bogus"},
		{"hook", "--help"},
		{"hook", "claude-code", "--help"},
		{"hook", "claude-code", "--bogus"},
		{"hook", "claude-code", "extra"},
		{"hook", "codex", "--json", "--nope"},
		{"hook", "codex", "--json", "extra"},
		{"hook", "claude-code", "--ssh"},
		{"hook", "claude-code", "--ssh", "me@host:/w"},
		{"hook", "codex", "--cairn-path", "/opt/cairn"},
		{"hook", "claude-code", "--home"},
		{"hook", "claude-code"},
		{"hook", "codex", "--json"},
		{"hook", "claude-code", "-C", filepath.Join(dir, "missing")},
		{"hook", "install"},
		{"hook", "install", "gemini"},
		{"hook", "install", "claude-code", "--user", "--project"},
		{"hook", "install", "--help"},
		{"hook", "uninstall", "codex", "--bogus"},
	}
}

// TestHookProgramAnswersAsCLI: the hook program (hookcmd.Main, which
// cmd/cairn-hook runs with the arguments after "hook") answers each
// `cairn hook …` command line as cairn's whole grammar does: exit code,
// stdout and stderr.
func TestHookProgramAnswersAsCLI(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	t.Setenv("CAIRN_HOME", home)
	t.Chdir(dir)
	answer := func(code int, out, errw *bytes.Buffer) string {
		return fmt.Sprintf("exit %d\nstdout %s\nstderr %s", code, out.String(), errw.String())
	}
	events := []string{"", "{not json", `{"hook_event_name":"Nope","session_id":"s1","cwd":"` + dir + `"}`}
	for _, args := range smallGrammarLines(dir) {
		if args[0] != "hook" {
			continue
		}
		for _, in := range events {
			var out, errw bytes.Buffer
			c := &CLI{}
			want := answer(mainGrammar(context.Background(), c, &c.Globals, args, strings.NewReader(in), &out, &errw, nil), &out, &errw)
			out.Reset()
			errw.Reset()
			got := answer(hookcmd.Main(context.Background(), args[1:], strings.NewReader(in), &out, &errw, nil), &out, &errw)
			if got != want {
				t.Fatalf("cairn %q (stdin %q): hook program\n%s\nwhole grammar\n%s", args, in, got, want)
			}
			if len(args) < 2 || args[1] == "install" || args[1] == "--help" {
				break
			}
		}
	}
}

// TestProcessContextOfHookEvents: cairn's run of an agent's hook event
// (`hook claude-code`, `hook codex`) watches for no signal, as the hook
// program's does; any other command line is cancelled by SIGINT.
func TestProcessContextOfHookEvents(t *testing.T) {
	seen := make(chan os.Signal, 1)
	signal.Notify(seen, os.Interrupt)
	defer signal.Stop(seen)
	ctx, stop := processContext([]string{"hook", "install", "claude-code"})
	defer stop()
	agent, agentStop := processContext([]string{"hook", "claude-code"})
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	<-seen
	<-ctx.Done()
	if agent.Err() != nil {
		t.Fatalf("SIGINT ended an agent's hook event: %v", agent.Err())
	}
	agentStop()
	for _, args := range [][]string{{"hook", "claude-code"}, {"hook", "codex"}} {
		if !hookcmd.AgentEvent(args) {
			t.Fatalf("%q is no agent's hook event", args)
		}
	}
	for _, args := range [][]string{{}, {"sessions"}, {"hook", "claude-code", "--json"}, {"--json", "hook", "codex"}} {
		if hookcmd.AgentEvent(args) {
			t.Fatalf("%q is an agent's hook event", args)
		}
	}
}
