package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// build builds the cairn packages given (cmd/cairn-hook, cmd/cairn) into
// dir, once per test binary.
func build(t *testing.T, dir string, pkgs ...string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Fatal("cairn runs on unix")
	}
	for _, p := range pkgs {
		out, err := exec.Command("go", "build", "-o", filepath.Join(dir, filepath.Base(p)), p).CombinedOutput()
		if err != nil {
			t.Fatalf("go build %s: %v\n%s", p, err, out)
		}
	}
}

// fakeCairn is a cairn command that notes its arguments and stdin in dir
// and exits 3.
func fakeCairn(t *testing.T, dir, notes string) {
	t.Helper()
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" > " + notes + "/args\ncat > " + notes + "/stdin\nexit 3\n"
	if err := os.WriteFile(filepath.Join(dir, "cairn"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

func setRemote(t *testing.T, home, url string) {
	t.Helper()
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"v": 1, "remotes": []map[string]string{{"name": "team", "url": url}}})
	if err := os.WriteFile(filepath.Join(home, "remotes.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func promptEvent(ws string) string {
	b, _ := json.Marshal(map[string]any{"session_id": "7c1d5b0e-0e0f-4b5a-9f5e-1f2e3d4c5b6a", "cwd": ws,
		"hook_event_name": "UserPromptSubmit", "prompt": "add a flag"})
	return string(b)
}

// run runs program with args and stdin; its exit code, stdout, stderr.
func run(t *testing.T, program, stdin string, args ...string) (int, string, string) {
	t.Helper()
	c := exec.Command(program, args...)
	c.Stdin = strings.NewReader(stdin)
	var out, errs strings.Builder
	c.Stdout, c.Stderr = &out, &errs
	err := c.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errs.String()
}

// titles lists the sessions of ws by the real cairn command.
func titles(t *testing.T, cairn, home, ws string) []string {
	t.Helper()
	code, out, errs := run(t, cairn, "", "--home", home, "-C", ws, "--json", "sessions")
	if code != 0 {
		t.Fatalf("cairn sessions: exit %d: %s", code, errs)
	}
	var l []struct{ Title string }
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatalf("sessions: %v: %q", err, out)
	}
	var ts []string
	for _, s := range l {
		ts = append(ts, s.Title)
	}
	return ts
}

// TestHookProgram: the hook program records as `cairn hook` does when it
// can check a session's lease itself (no remote, or a folder remote);
// with a cloud remote as the default, whose provider it lacks, it hands
// the run to the cairn command beside it, in place, with the same
// arguments and the event unread on stdin; with no cairn there it records
// nothing and says why in its JSON answer, exit 0, as other hook failures.
func TestHookProgram(t *testing.T) {
	full, hookOnly, withFake := t.TempDir(), t.TempDir(), t.TempDir()
	build(t, full, "cairn/cmd/cairn", "cairn/cmd/cairn-hook")
	for _, d := range []string{hookOnly, withFake} {
		b, err := os.ReadFile(filepath.Join(full, "cairn-hook"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "cairn-hook"), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	notes := t.TempDir()
	fakeCairn(t, withFake, notes)
	cairn := filepath.Join(full, "cairn")

	t.Run("fast path", func(t *testing.T) {
		for _, remote := range []string{"", "file://" + filepath.ToSlash(t.TempDir())} {
			home, ws := filepath.Join(t.TempDir(), "home"), t.TempDir()
			if remote != "" {
				setRemote(t, home, remote)
			}
			code, out, errs := run(t, filepath.Join(withFake, "cairn-hook"), promptEvent(ws), "--home", home, "claude-code")
			if code != 0 || out != "" {
				t.Fatalf("remote %q: exit %d, stdout %q, stderr %q", remote, code, out, errs)
			}
			if _, err := os.Stat(filepath.Join(notes, "args")); err == nil {
				t.Fatalf("remote %q: the hook program handed over", remote)
			}
			if got := titles(t, cairn, home, ws); len(got) != 1 || got[0] != "add a flag" {
				t.Fatalf("remote %q: sessions %q", remote, got)
			}
		}
	})

	// An S3 remote that nothing serves: the cairn command would fail to
	// reach it; the hook program must not open sessions without it.
	const s3 = "s3://team-bucket/cairn?endpoint=http://127.0.0.1:9"

	t.Run("hand-over", func(t *testing.T) {
		home, ws := filepath.Join(t.TempDir(), "home"), t.TempDir()
		setRemote(t, home, s3)
		ev := promptEvent(ws)
		code, out, errs := run(t, filepath.Join(withFake, "cairn-hook"), ev, "--home", home, "claude-code")
		if code != 3 || out != "" {
			t.Fatalf("exit %d (the cairn command's is 3), stdout %q, stderr %q", code, out, errs)
		}
		args, _ := os.ReadFile(filepath.Join(notes, "args"))
		stdin, _ := os.ReadFile(filepath.Join(notes, "stdin"))
		if want := "hook\n--home\n" + home + "\nclaude-code\n"; string(args) != want {
			t.Fatalf("the cairn command's arguments %q, want %q", args, want)
		}
		if string(stdin) != ev {
			t.Fatalf("the cairn command's stdin %q, want the whole event %q", stdin, ev)
		}
	})

	// Installed from a cairn with the hook program beside it, the hooks run
	// the hook program, unless the default remote is a cloud one: every
	// event would then start both programs, so they run cairn hook.
	t.Run("install", func(t *testing.T) {
		for remote, want := range map[string]string{
			"": filepath.Join(full, "cairn-hook") + " claude-code",
			s3: cairn + " hook claude-code",
			"file://" + filepath.ToSlash(t.TempDir()): filepath.Join(full, "cairn-hook") + " claude-code",
		} {
			home, ws := filepath.Join(t.TempDir(), "home"), t.TempDir()
			if remote != "" {
				setRemote(t, home, remote)
			}
			code, out, errs := run(t, cairn, "", "--home", home, "-C", ws, "hook", "install", "claude-code")
			if code != 0 {
				t.Fatalf("remote %q: install: exit %d: %s%s", remote, code, out, errs)
			}
			b, err := os.ReadFile(filepath.Join(ws, ".claude", "settings.local.json"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), strconv.Quote(want)) {
				t.Fatalf("remote %q: the hooks do not run %q:\n%s\n%s", remote, want, b, out)
			}
		}
	})

	t.Run("no cairn beside it", func(t *testing.T) {
		home, ws := filepath.Join(t.TempDir(), "home"), t.TempDir()
		setRemote(t, home, s3)
		code, out, errs := run(t, filepath.Join(hookOnly, "cairn-hook"), promptEvent(ws), "--home", home, "claude-code")
		var ans struct{ SystemMessage string }
		if code != 0 || json.Unmarshal([]byte(out), &ans) != nil {
			t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
		}
		for _, w := range []string{"not recorded", "remote team (s3)", "no cairn command at " + filepath.Join(hookOnly, "cairn")} {
			if !strings.Contains(ans.SystemMessage, w) || !strings.Contains(errs, w) {
				t.Fatalf("the answer does not say %q: %q, stderr %q", w, ans.SystemMessage, errs)
			}
		}
		if got := titles(t, cairn, home, ws); len(got) != 0 {
			t.Fatalf("sessions recorded without their lease: %q", got)
		}
	})
}

// initBudget is the most a package below cli may allocate in its package
// init, in bytes: sentinel errors and small fixed values. A table (a map
// literal, a word list split at init) is built on first use instead,
// since every tool call starts this program and most of them never use it.
const initBudget = 3 << 10

// TestHookProgramInitIsSmall: the packages the hook program links below
// cli allocate little in their package init (GODEBUG=inittrace=1, which
// counts the bytes each package's init allocates, the same every run).
func TestHookProgramInitIsSmall(t *testing.T) {
	dir := t.TempDir()
	build(t, dir, "cairn/cmd/cairn-hook")
	c := exec.Command(filepath.Join(dir, "cairn-hook"), "--version")
	c.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("cairn-hook --version: %v\n%s", err, out)
	}
	seen := 0
	for _, line := range strings.Split(string(out), "\n") {
		// init PKG @T ms, C ms clock, B bytes, N allocs
		f := strings.Fields(line)
		if len(f) != 11 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		pkg := f[1]
		if !strings.HasPrefix(pkg, "cairn/") || strings.HasPrefix(pkg, "cairn/cli") || strings.HasPrefix(pkg, "cairn/cmd/") {
			continue
		}
		seen++
		var n int
		if _, err := fmt.Sscan(f[7], &n); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if n > initBudget {
			t.Errorf("package %s allocates %d bytes at init (more than %d): build its tables on first use", pkg, n, initBudget)
		}
	}
	if seen == 0 {
		t.Fatalf("no cairn package's init traced:\n%s", out)
	}
}

// TestHookProgramLinksOnlyTheHook: the hook program links the hook
// command (cli/hookcmd) and what it needs, not the rest of the cairn
// command: package cli, the MCP server's SDK, the terminal UI, the
// remote workspace client, completion, the man page; nor net/http and
// crypto/tls (the engine sniffs an attachment's media type itself). Their
// package init and size are what every tool call would pay for.
func TestHookProgramLinksOnlyTheHook(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "cairn/cli/hookcmd") {
		t.Fatalf("the hook program does not link cairn/cli/hookcmd:\n%s", out)
	}
	allowed := []string{"cairn/cli/cmdbase", "cairn/cli/hookcmd", "cairn/cli/display"}
	refused := []string{"cairn/cli", "cairn/remotews", "github.com/modelcontextprotocol", "github.com/charmbracelet",
		"github.com/willabides/kongplete", "github.com/posener/complete", "github.com/muesli", "net/http", "crypto/tls"}
	for _, d := range deps {
		if slices.Contains(allowed, d) {
			continue
		}
		for _, no := range refused {
			if d == no || strings.HasPrefix(d, no+"/") {
				t.Errorf("the hook program links %s", d)
			}
		}
	}
}

// TestHookProgramFastPath: `cairn-hook claude-code` and `cairn-hook
// codex`, the command lines hook install writes, run without kong's
// grammar (cli/hookcmd/fast.go); a hook process answers each event with
// the same exit code, stdout and stderr, and records the same, as one
// that kong parses (`claude-code --json=false`, whose Globals kong leaves
// exactly as for `claude-code`). Any other command line is still kong's,
// with its errors.
func TestHookProgramFastPath(t *testing.T) {
	dir := t.TempDir()
	build(t, dir, "cairn/cmd/cairn-hook", "cairn/cmd/cairn")
	hook := filepath.Join(dir, "cairn-hook")
	play := func(extra ...string) (answers []string, sessions []string) {
		home, ws := filepath.Join(t.TempDir(), "home"), t.TempDir()
		os.WriteFile(filepath.Join(ws, "a.txt"), []byte("one\n"), 0o644)
		edit := map[string]any{"file_path": filepath.Join(ws, "a.txt"), "old_string": "one", "new_string": "two"}
		ev := func(m map[string]any) string {
			if _, ok := m["session_id"]; !ok {
				m["session_id"] = "7c1d5b0e-0e0f-4b5a-9f5e-1f2e3d4c5b6a"
			}
			m["cwd"] = ws
			b, _ := json.Marshal(m)
			return string(b)
		}
		steps := []struct {
			agent, in string
			then      func()
		}{
			{"claude-code", "{not json", nil},
			{"claude-code", ev(map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "make it two"}), nil},
			{"claude-code", ev(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_input": edit, "tool_use_id": "toolu_1"}),
				func() { os.WriteFile(filepath.Join(ws, "a.txt"), []byte("two\n"), 0o644) }},
			{"claude-code", ev(map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Edit", "tool_input": edit, "tool_use_id": "toolu_1"}), nil},
			{"claude-code", ev(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": edit}), nil},
			{"claude-code", ev(map[string]any{"hook_event_name": "Stop"}), nil},
			{"codex", ev(map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "from codex", "session_id": ""}), nil},
		}
		for _, s := range steps {
			c := exec.Command(hook, append([]string{s.agent}, extra...)...)
			c.Env = append(os.Environ(), "CAIRN_HOME="+home)
			c.Stdin = strings.NewReader(s.in)
			var out, errs strings.Builder
			c.Stdout, c.Stderr = &out, &errs
			code := 0
			if err := c.Run(); err != nil {
				ee, ok := err.(*exec.ExitError)
				if !ok {
					t.Fatal(err)
				}
				code = ee.ExitCode()
			}
			a := fmt.Sprintf("%s %s: exit %d\nstdout %s\nstderr %s", s.agent, s.in, code, out.String(), errs.String())
			answers = append(answers, strings.NewReplacer(ws, "WS", home, "HOME").Replace(a))
			if s.then != nil {
				s.then()
			}
		}
		return answers, titles(t, filepath.Join(dir, "cairn"), home, ws)
	}
	fa, fs := play()
	ka, ks := play("--json=false")
	for i := range ka {
		if fa[i] != ka[i] {
			t.Fatalf("fast path:\n%s\nkong:\n%s", fa[i], ka[i])
		}
	}
	if !slices.Equal(fs, ks) || !slices.Equal(fs, []string{"make it two"}) {
		t.Fatalf("sessions %q through the fast path, %q through kong", fs, ks)
	}
	if all := strings.Join(ka, "\n"); !strings.Contains(all, "not JSON") || !strings.Contains(all, "no tool_use_id") || !strings.Contains(all, "no session_id") {
		t.Fatalf("the hooks did not answer every kind of event:\n%s", all)
	}
	// Not the fast path: kong's answers.
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"claude-code", "--bogus"}, 2, "unknown flag --bogus"},
		{[]string{"claude"}, 2, "unexpected argument claude"},
		{[]string{"codex", "extra"}, 2, "unexpected argument extra"},
		{[]string{"--help"}, 0, "Usage: cairn hook"},
	} {
		code, out, errs := run(t, hook, "", c.args...)
		if code != c.code || !strings.Contains(out+errs, c.says) {
			t.Fatalf("cairn-hook %q: exit %d (want %d), stdout %q, stderr %q (want %q)", c.args, code, c.code, out, errs, c.says)
		}
	}
}

// TestHookEventStoppedBySIGINT: an agent's hook event watches for no
// signal (cli/hookcmd processContext): SIGINT stops it as it would any
// program, wherever it is, and the next event records as ever.
func TestHookEventStoppedBySIGINT(t *testing.T) {
	dir := t.TempDir()
	build(t, dir, "cairn/cmd/cairn-hook", "cairn/cmd/cairn")
	home, ws := filepath.Join(t.TempDir(), "home"), t.TempDir()
	hook := func() *exec.Cmd {
		c := exec.Command(filepath.Join(dir, "cairn-hook"), "claude-code")
		c.Env = append(os.Environ(), "CAIRN_HOME="+home)
		return c
	}
	c := hook()
	in, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	ev := promptEvent(ws)
	in.Write([]byte(ev[:len(ev)/2]))
	if err := c.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	in.Close()
	err = c.Wait()
	st, _ := c.ProcessState.Sys().(syscall.WaitStatus)
	if err == nil || !st.Signaled() || st.Signal() != syscall.SIGINT {
		t.Fatalf("the hook was not stopped by SIGINT: %v", err)
	}
	c = hook()
	c.Stdin = strings.NewReader(ev)
	if out, err := c.CombinedOutput(); err != nil || len(out) != 0 {
		t.Fatalf("the next hook: %v: %s", err, out)
	}
	if got := titles(t, filepath.Join(dir, "cairn"), home, ws); !slices.Equal(got, []string{"add a flag"}) {
		t.Fatalf("sessions %q", got)
	}
}
