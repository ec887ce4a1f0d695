package hookcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"cairn/cli/cmdbase"
	"cairn/engine"
)

// globalsEnvs are the env vars kong reads for Globals' flags (their env
// tags), each one once.
func globalsEnvs(t *testing.T) []string {
	t.Helper()
	var envs []string
	gt := reflect.TypeOf(cmdbase.Globals{})
	for i := range gt.NumField() {
		if e := gt.Field(i).Tag.Get("env"); e != "" {
			envs = append(envs, strings.Split(e, ",")...)
		}
	}
	if len(envs) == 0 {
		t.Fatal("no Globals flag has an env var: --home's CAIRN_HOME is gone?")
	}
	return envs
}

// installedLines are the command lines (after the program's name, and
// with the "hook" hookcmd.Main puts before cairn-hook's arguments) that
// `hook install` writes for each agent: for the hook program, for a
// cairn without it, and for --command.
func installedLines(t *testing.T) [][]string {
	t.Helper()
	dir := t.TempDir()
	prog := filepath.Join(dir, hookProgram)
	if err := os.WriteFile(prog, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var lines [][]string
	for _, agent := range []string{"claude-code", "codex"} {
		for _, exe := range []string{prog, filepath.Join(dir, "cairn"), filepath.Join(t.TempDir(), "cairn")} {
			cmd, _ := hookCommand(exe, agent)
			f := strings.Fields(cmd)
			if filepath.Base(f[0]) == hookProgram {
				f[0] = "hook" // hookcmd.Main's
			} else {
				f = f[1:]
			}
			lines = append(lines, f)
		}
		// --command CMD: CMD + " hook " + agent (HookInstallCmd.Run).
		lines = append(lines, strings.Fields("/opt/cairn hook " + agent)[1:])
	}
	return lines
}

// TestFastGlobalsAreKongs: for each command line that `hook install`
// writes into an agent's settings, the fast path (Command.Fast) runs the
// command kong would choose, with the Globals exactly as kong's parse and
// Command's Check leave them, whatever each env var of a Globals flag
// holds (unset, empty, a path, bytes that are not UTF-8); and the run's
// own fields (kong:"-") are left as they were. A flag added to Globals
// with an env var or a default that Globals.Unflagged does not set fails
// here.
func TestFastGlobalsAreKongs(t *testing.T) {
	envs := globalsEnvs(t)
	values := []*string{nil}
	for _, v := range []string{"", "rel/home", "/abs/home", "/h\xffme dir", "1"} {
		values = append(values, &v)
	}
	handOver := func(engine.Remote) error { return nil }
	var stdin io.Reader = strings.NewReader("")
	for _, args := range installedLines(t) {
		for _, env := range envs {
			for _, v := range values {
				for _, e := range envs {
					t.Setenv(e, "")
					os.Unsetenv(e)
				}
				if v != nil {
					t.Setenv(env, *v)
				}
				what := fmt.Sprintf("%q with %s=%v", args, env, v)
				if v != nil {
					what = fmt.Sprintf("%q with %s=%q", args, env, *v)
				}

				k := &CLI{}
				k.HandOver, k.Stdin = handOver, stdin
				kcmd := Command(k, &k.Globals)
				parser, err := cmdbase.NewParser(k, nil, kcmd.Options...)
				if err != nil {
					t.Fatal(err)
				}
				kctx, err := parser.Parse(args)
				if err != nil {
					t.Fatalf("%s: kong: %v", what, err)
				}
				if err := kcmd.Check(kctx); err != nil {
					t.Fatalf("%s: kong's check: %v", what, err)
				}

				f := &CLI{}
				f.HandOver, f.Stdin = handOver, stdin
				run := Command(f, &f.Globals).Fast(args)
				if run == nil {
					t.Fatalf("%s: not on the fast path", what)
				}
				if kctx.Command() != strings.Join(args, " ") || reflect.ValueOf(fastRun(args[1])).Pointer() == 0 {
					t.Fatalf("%s: kong runs %q", what, kctx.Command())
				}
				for _, g := range []*cmdbase.Globals{&k.Globals, &f.Globals} {
					if reflect.ValueOf(g.HandOver).Pointer() != reflect.ValueOf(handOver).Pointer() || g.Stdin != stdin {
						t.Fatalf("%s: the run's own fields changed", what)
					}
					g.HandOver, g.Stdin = nil, nil
				}
				if !reflect.DeepEqual(k.Globals, f.Globals) {
					t.Fatalf("%s: fast path's Globals\n%#v\nkong's\n%#v", what, f.Globals, k.Globals)
				}
			}
		}
	}
}

// TestFastLinesAreExact: only the command lines `hook install` writes
// take the fast path; every other line, flags and typos among them, is
// kong's to parse (and to refuse).
func TestFastLinesAreExact(t *testing.T) {
	c := &CLI{}
	cmd := Command(c, &c.Globals)
	for _, args := range installedLines(t) {
		if cmd.Fast(args) == nil || !AgentEvent(args) {
			t.Fatalf("%q, which hook install writes, is not on the fast path", args)
		}
	}
	for _, args := range [][]string{
		nil, {}, {"hook"}, {"claude-code"}, {"codex"}, {"hook", "install"}, {"hook", "install", "claude-code"},
		{"hook", "uninstall", "codex"}, {"hook", "--help"}, {"hook", "claude-code", "--help"},
		{"hook", "claude-code", "--json"}, {"hook", "codex", "--home", "/h"}, {"--json", "hook", "codex"},
		{"-C", "/w", "hook", "claude-code"}, {"hook", "claude-code", "extra"}, {"hook", "claude-code", ""},
		{"hook", "Claude-code"}, {"hook", "claude"}, {"hook", "codex "}, {"hook", ""}, {"hook", "--version"},
		{"hook", "claude-code", "--"}, {"hook", "--", "codex"}, {"hook", "gemini"},
	} {
		if cmd.Fast(args) != nil || AgentEvent(args) {
			t.Fatalf("%q takes the fast path", args)
		}
	}
}

// TestFastAnswersAsKong: a run of hook events (a prompt, an Edit's
// PreToolUse and PostToolUse, a Bash call, a turn's end, events that
// cannot be recorded, stdin that is no event) gets the same exit codes
// and answers through the fast path as through kong, and records the
// same sessions.
func TestFastAnswersAsKong(t *testing.T) {
	type result struct {
		answers  []string
		sessions string
	}
	play := func(fastOn bool) result {
		// Claude Code names its project folder (CLAUDE_PROJECT_DIR), the
		// workspace of its events, which come from a folder under it; a
		// Codex event's workspace is its cwd.
		home, ws := t.TempDir(), t.TempDir()
		sub := filepath.Join(ws, "sub")
		os.Mkdir(sub, 0o755)
		t.Setenv("CAIRN_HOME", home)
		t.Setenv("CLAUDE_PROJECT_DIR", ws)
		os.WriteFile(filepath.Join(ws, "a.txt"), []byte("one\n"), 0o644)
		ev := func(agent string, m map[string]any) (string, string) {
			if m == nil {
				return agent, ""
			}
			if _, ok := m["session_id"]; !ok {
				m["session_id"] = "5b0e7c1d-0e0f-4b5a-9f5e-1f2e3d4c5b6a"
			}
			m["cwd"] = sub
			b, _ := json.Marshal(m)
			return agent, string(b)
		}
		edit := map[string]any{"file_path": filepath.Join(ws, "a.txt"), "old_string": "one", "new_string": "two"}
		bash := map[string]any{"command": "echo three > b.txt"}
		type step struct{ agent, in string }
		steps := []func() step{
			func() step { a, in := ev("claude-code", nil); return step{a, in} },
			func() step { return step{"claude-code", "{not json"} },
			func() step {
				a, in := ev("claude-code", map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "make it two"})
				return step{a, in}
			},
			func() step {
				a, in := ev("claude-code", map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_input": edit, "tool_use_id": "toolu_1"})
				return step{a, in}
			},
			func() step {
				os.WriteFile(filepath.Join(ws, "a.txt"), []byte("two\n"), 0o644)
				a, in := ev("claude-code", map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Edit", "tool_input": edit, "tool_use_id": "toolu_1"})
				return step{a, in}
			},
			func() step {
				a, in := ev("claude-code", map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": bash, "tool_use_id": "toolu_2"})
				return step{a, in}
			},
			func() step {
				os.WriteFile(filepath.Join(sub, "b.txt"), []byte("three\n"), 0o644)
				a, in := ev("claude-code", map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": bash, "tool_use_id": "toolu_2"})
				return step{a, in}
			},
			func() step {
				a, in := ev("claude-code", map[string]any{"hook_event_name": "Stop", "model": "claude-opus-4-6"})
				return step{a, in}
			},
			func() step {
				a, in := ev("claude-code", map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_input": edit})
				return step{a, in}
			},
			func() step {
				a, in := ev("codex", map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "from codex", "session_id": ""})
				return step{a, in}
			},
			func() step {
				a, in := ev("codex", map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "from codex", "session_id": "019a0000-0000-7000-8000-000000000001"})
				return step{a, in}
			},
			func() step { a, in := ev("codex", map[string]any{"hook_event_name": "Nope"}); return step{a, in} },
		}
		var r result
		for _, s := range steps {
			st := s()
			c := &CLI{}
			cmd := Command(c, &c.Globals)
			took := false
			if fastOn {
				fast := cmd.Fast
				cmd.Fast = func(args []string) func() error {
					run := fast(args)
					took = run != nil
					return run
				}
			} else {
				cmd.Fast = nil
			}
			var o, e bytes.Buffer
			code := cmdbase.Main(context.Background(), cmd, []string{"hook", st.agent}, strings.NewReader(st.in), &o, &e)
			if fastOn && !took {
				t.Fatalf("hook %s did not take the fast path", st.agent)
			}
			a := fmt.Sprintf("hook %s, stdin %s: exit %d\nstdout %s\nstderr %s", st.agent, st.in, code, o.String(), e.String())
			r.answers = append(r.answers, strings.NewReplacer(ws, "WS", home, "HOME").Replace(a))
		}
		st, err := engine.Open(home)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		for _, dir := range []string{ws, sub} {
			label := map[string]string{ws: "project", sub: "sub"}[dir]
			w, err := st.Workspace(dir)
			if err != nil {
				t.Fatal(err)
			}
			l, _, err := w.List(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range l {
				r.sessions += fmt.Sprintf("%s: %q %d items\n", label, s.Title, s.Items)
			}
		}
		return r
	}
	k, f := play(false), play(true)
	if len(k.answers) != len(f.answers) {
		t.Fatalf("%d answers through kong, %d through the fast path", len(k.answers), len(f.answers))
	}
	for i := range k.answers {
		if k.answers[i] != f.answers[i] {
			t.Fatalf("fast path:\n%s\nkong:\n%s", f.answers[i], k.answers[i])
		}
	}
	if k.sessions != f.sessions || !strings.Contains(k.sessions, `project: "make it two"`) || !strings.Contains(k.sessions, `sub: "from codex"`) {
		t.Fatalf("sessions through the fast path:\n%s\nthrough kong:\n%s", f.sessions, k.sessions)
	}
	// The answers are of every kind: a recorded event's (nothing), a
	// hook's that could not record (a systemMessage), exit 0 throughout.
	all := strings.Join(k.answers, "\n")
	for _, w := range []string{"systemMessage", "not JSON", "no session_id", "no tool_use_id"} {
		if !strings.Contains(all, w) {
			t.Fatalf("no answer says %q:\n%s", w, all)
		}
	}
}

// TestHookEventsWatchNoSignal: the hook program's run of an agent's hook
// event (a line hook install writes) watches for no signal, which would
// cost each process a thread; every other command line, run by a
// person, is cancelled by SIGINT (Ctrl-C).
func TestHookEventsWatchNoSignal(t *testing.T) {
	for _, args := range installedLines(t) {
		if watchesSIGINT(args[1:]) {
			t.Fatalf("cairn-hook %q watches SIGINT", args[1:])
		}
	}
	person := [][]string{{}, {"install", "claude-code"}, {"uninstall", "codex"}, {"--help"}, {"claude-code", "--help"},
		{"claude-code", "--json"}, {"claude"}, {"codex", "extra"}, {"--home", "/h", "codex"}}
	for _, args := range person {
		if !watchesSIGINT(args) {
			t.Fatalf("cairn-hook %q does not watch SIGINT", args)
		}
	}
	// A person's run is cancelled by SIGINT. This test's own channel takes
	// the signal too, so that it does not stop the test.
	seen := make(chan os.Signal, 1)
	signal.Notify(seen, os.Interrupt)
	defer signal.Stop(seen)
	ctx, stop := processContext(person[1])
	defer stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	<-seen
	<-ctx.Done()
	// An agent's hook event gets a context SIGINT does not end (its
	// agent kills it instead), ended by its own stop.
	ctx, stop = processContext([]string{"claude-code"})
	if ctx.Err() != nil {
		t.Fatal(ctx.Err())
	}
	stop()
	<-ctx.Done()
}
