package hookcmd

import (
	"bytes"
	"cairn/cli/cmdbase"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// hookMain runs the cairn command line args, a hook command (global flags,
// then "hook", then the rest), in-process as the hook program does, with
// stdin in, in folder dir.
func hookMain(t *testing.T, home, dir, in string, args ...string) (int, string, string) {
	t.Helper()
	i := slices.Index(args, "hook")
	if i < 0 {
		t.Fatalf("not a hook command line: %q", args)
	}
	rest := append([]string{"--home", home, "-C", dir}, args[:i]...)
	var o, e bytes.Buffer
	code := Main(context.Background(), append(rest, args[i+1:]...), strings.NewReader(in), &o, &e, nil)
	return code, o.String(), e.String()
}

// A settings file full of other hooks and settings, written compactly by
// hand as people do (not in the agent's own two-space layout).
const userSettings = `{
  "permissions": {"allow": ["Bash(npm run lint)", "Read(~/.zshrc)"], "deny": []},
  "env": {"FOO": "a<b&&c", "N": 1.50, "Z": null},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "/usr/local/bin/guard.sh", "timeout": 5}]},
      {"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "prettier --write \"$F\""}]}
    ],
    "Notification": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "say finished", "async": true}]}]
  },
  "model": "opus"
}
`

func TestHookInstallMergesAndUninstallRestores(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	name := filepath.Join(dir, ".claude", "settings.local.json")
	os.MkdirAll(filepath.Dir(name), 0o755)
	os.WriteFile(name, []byte(userSettings), 0o640)

	code, out, errs := hookMain(t, home, dir, "", "hook", "install", "claude-code", "--command", "/opt/cairn")
	if code != 0 || !strings.Contains(out, "added PreToolUse") {
		t.Fatalf("install: %d %q %q", code, out, errs)
	}
	after, _ := os.ReadFile(name)
	var got map[string]any
	if err := json.Unmarshal(after, &got); err != nil {
		t.Fatal(err)
	}
	hooks := got["hooks"].(map[string]any)
	for _, ev := range []string{"PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SessionEnd", "Notification"} {
		if hooks[ev] == nil {
			t.Errorf("no %s after install", ev)
		}
	}
	if n := len(hooks["PreToolUse"].([]any)); n != 3 {
		t.Errorf("PreToolUse has %d groups, want the user's 2 and cairn's", n)
	}
	if !strings.Contains(string(after), `"/opt/cairn hook claude-code"`) || !strings.Contains(string(after), `"FOO": "a<b&&c"`) ||
		!strings.Contains(string(after), `"N": 1.50`) {
		t.Errorf("install wrote:\n%s", after)
	}
	// Keys keep their order: permissions, env, hooks, model.
	if i, j, k := strings.Index(string(after), `"permissions"`), strings.Index(string(after), `"hooks"`), strings.Index(string(after), `"model"`); !(i < j && j < k) {
		t.Errorf("key order lost:\n%s", after)
	}
	if fi, _ := os.Stat(name); fi.Mode().Perm() != 0o640 {
		t.Errorf("perm %v, want 0640 kept", fi.Mode().Perm())
	}

	// Again: nothing changes, byte for byte.
	code, out, _ = hookMain(t, home, dir, "", "hook", "install", "claude-code", "--command", "/opt/cairn")
	if again, _ := os.ReadFile(name); code != 0 || !bytes.Equal(again, after) || !strings.Contains(out, "nothing changed") {
		t.Fatalf("second install: %d %q", code, out)
	}

	// Uninstall: the same settings as before, semantically (the layout is
	// the agent's two-space one).
	code, out, _ = hookMain(t, home, dir, "", "hook", "uninstall", "claude-code")
	if code != 0 || !strings.Contains(out, "removed SessionEnd") {
		t.Fatalf("uninstall: %d %q", code, out)
	}
	back, _ := os.ReadFile(name)
	var want, have any
	json.Unmarshal([]byte(userSettings), &want)
	json.Unmarshal(back, &have)
	if !reflect.DeepEqual(want, have) {
		t.Fatalf("uninstall left:\n%s", back)
	}
	// A file in the two-space layout comes back byte for byte.
	os.WriteFile(name, back, 0o640)
	hookMain(t, home, dir, "", "hook", "install", "claude-code", "--command", "/opt/cairn")
	hookMain(t, home, dir, "", "hook", "uninstall", "claude-code")
	if again, _ := os.ReadFile(name); !bytes.Equal(again, back) {
		t.Fatalf("install+uninstall changed a two-space file:\n%s\nwas\n%s", again, back)
	}
}

func TestHookInstallRefusesBadJSON(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	name := filepath.Join(dir, ".codex", "hooks.json")
	os.MkdirAll(filepath.Dir(name), 0o755)
	// An event's entry that is not a list of matcher groups (an object
	// where the list belongs, a string) is the user's: refused, not
	// replaced by cairn's list, by install and uninstall alike.
	for _, bad := range []string{`{"hooks": {`, `[1]`, `{"hooks": []}`, `{"hooks": {"PreToolUse": {"matcher": "x"}}}`,
		`{"hooks": {"Notification": "notify-send done", "Stop": []}}`} {
		for _, verb := range []string{"install", "uninstall"} {
			os.WriteFile(name, []byte(bad), 0o644)
			args := []string{"hook", verb, "codex"}
			if verb == "install" {
				args = append(args, "--command", "cairn")
			}
			code, _, errs := hookMain(t, home, dir, "", args...)
			if code != cmdbase.ExitUsage || !strings.Contains(errs, "nothing was changed") {
				t.Errorf("%s %q: exit %d %q", verb, bad, code, errs)
			}
			if b, _ := os.ReadFile(name); string(b) != bad {
				t.Errorf("%s: %q changed to %q", verb, bad, b)
			}
		}
	}
}

func TestHookInstallUserScopeCodex(t *testing.T) {
	home, dir, codex := t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv("CODEX_HOME", codex)
	code, out, errs := hookMain(t, home, dir, "", "hook", "install", "codex", "--user", "--command", "cairn")
	if code != 0 || !strings.Contains(out, "/hooks") {
		t.Fatalf("install: %d %q %q", code, out, errs)
	}
	b, err := os.ReadFile(filepath.Join(codex, "hooks.json"))
	if err != nil || !strings.Contains(string(b), `"matcher": "apply_patch|Write|Edit|Bash"`) {
		t.Fatalf("hooks.json: %v\n%s", err, b)
	}
	hookMain(t, home, dir, "", "hook", "uninstall", "codex", "--user")
	if b, _ := os.ReadFile(filepath.Join(codex, "hooks.json")); string(b) != "{}\n" {
		t.Fatalf("after uninstall: %q", b)
	}
}

// Install then uninstall gives the user's settings back key for key: a
// "hooks" object or an event list the user had, even empty, stays; what
// install made for cairn's entries goes. Each case is the file before
// install, and the JSON it must be after uninstall (itself).
func TestHookUninstallKeepsTheUsersEmptyKeys(t *testing.T) {
	cases := []string{
		`{"hooks": {}}`,
		"{\n\t\"model\": \"opus\",\n\t\"hooks\": {}\n}\n",
		`{"hooks": {"PreToolUse": []}}`,
		`{"hooks": {"PreToolUse": [], "Stop": [], "SessionEnd": []}}`,
		`{"hooks": {"Notification": [], "PostToolUse": []}}`,
		`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard"}]}], "Stop": []}}`,
		`{"model": "opus"}`,
		`{}`,
	}
	for _, agent := range []string{"claude-code", "codex"} {
		for _, before := range cases {
			home, dir := t.TempDir(), t.TempDir()
			name := filepath.Join(dir, ".claude", "settings.local.json")
			if agent == "codex" {
				name = filepath.Join(dir, ".codex", "hooks.json")
			}
			os.MkdirAll(filepath.Dir(name), 0o755)
			os.WriteFile(name, []byte(before), 0o644)
			if code, out, errs := hookMain(t, home, dir, "", "hook", "install", agent, "--command", "/opt/cairn"); code != 0 || !strings.Contains(out, "added") {
				t.Fatalf("%s install on %q: %d %q %q", agent, before, code, out, errs)
			}
			// A second install changes nothing, and keeps what the first noted.
			if code, out, _ := hookMain(t, home, dir, "", "hook", "install", agent, "--command", "/opt/cairn"); code != 0 || !strings.Contains(out, "nothing changed") {
				t.Fatalf("%s second install on %q: %d %q", agent, before, code, out)
			}
			if code, out, errs := hookMain(t, home, dir, "", "hook", "uninstall", agent); code != 0 || !strings.Contains(out, "removed") {
				t.Fatalf("%s uninstall on %q: %d %q %q", agent, before, code, out, errs)
			}
			after, _ := os.ReadFile(name)
			var want, have any
			json.Unmarshal([]byte(before), &want)
			if err := json.Unmarshal(after, &have); err != nil || !reflect.DeepEqual(want, have) {
				t.Errorf("%s: install and uninstall turned %q into %q", agent, before, after)
			}
			// The note has served: nothing of it is left in the state folder.
			if _, err := os.Stat(filepath.Join(home, "hook-installs.json")); err == nil {
				b, _ := os.ReadFile(filepath.Join(home, "hook-installs.json"))
				t.Errorf("%s on %q: the note is left after uninstall: %s", agent, before, b)
			}
		}
	}
}

// An empty list noted at one install, which the user then took out of the
// file, is not brought back by the next install and uninstall.
func TestHookUninstallForgetsWhatTheUserRemoved(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	name := filepath.Join(dir, ".claude", "settings.local.json")
	os.MkdirAll(filepath.Dir(name), 0o755)
	os.WriteFile(name, []byte(`{"hooks": {}}`), 0o644)
	hookMain(t, home, dir, "", "hook", "install", "claude-code", "--command", "/opt/cairn")
	// The user deletes the whole hooks object by hand, then installs again.
	os.WriteFile(name, []byte(`{"model": "opus"}`), 0o644)
	hookMain(t, home, dir, "", "hook", "install", "claude-code", "--command", "/opt/cairn")
	hookMain(t, home, dir, "", "hook", "uninstall", "claude-code")
	if b, _ := os.ReadFile(name); string(b) != "{\n  \"model\": \"opus\"\n}\n" {
		t.Fatalf("after uninstall: %q", b)
	}
}

// Under --ephemeral too, what install notes outlives the run: install and
// uninstall are about the agent's settings, never ephemeral.
func TestHookInstallNoteOutlivesEphemeral(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	name := filepath.Join(dir, ".claude", "settings.local.json")
	os.MkdirAll(filepath.Dir(name), 0o755)
	os.WriteFile(name, []byte(`{"hooks": {}}`), 0o644)
	if code, out, errs := hookMain(t, home, dir, "", "--ephemeral", "hook", "install", "claude-code", "--command", "/opt/cairn"); code != 0 {
		t.Fatalf("install: %d %q %q", code, out, errs)
	}
	hookMain(t, home, dir, "", "--ephemeral", "hook", "uninstall", "claude-code")
	if b, _ := os.ReadFile(name); string(b) != "{\n  \"hooks\": {}\n}\n" {
		t.Fatalf("after uninstall: %q", b)
	}
}

// TestHookCommandPrefersHookProgram: install writes the hook program's
// path when it sits beside the running cairn (go install ./cmd/... puts
// both in GOBIN), or when it is the running program, else `cairn hook`;
// and both forms are cairn's entries, so that an install replaces the
// other form and uninstall takes either out.
func TestHookCommandPrefersHookProgram(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my bin")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	exe, hook := filepath.Join(dir, "cairn"), filepath.Join(dir, "cairn-hook")
	if err := os.WriteFile(exe, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd, prog := hookCommand(exe, "codex")
	if cmd != quoteArg(exe)+" hook codex" || prog != "" {
		t.Fatalf("no hook program beside cairn: %q %q", cmd, prog)
	}
	if err := os.WriteFile(hook, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if cmd, prog = hookCommand(exe, "codex"); prog != "" {
		t.Fatalf("a hook program that cannot run: %q %q", cmd, prog)
	}
	if err := os.Chmod(hook, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, running := range []string{exe, hook} {
		cmd, prog = hookCommand(running, "claude-code")
		if cmd != quoteArg(hook)+" claude-code" || prog != hook {
			t.Fatalf("running %s: %q %q", running, cmd, prog)
		}
	}
	e := hookEntries("claude-code")[0]
	for _, c := range []string{quoteArg(hook) + " claude-code", "/usr/bin/cairn-hook claude-code", "cairn-hook claude-code", quoteArg(exe) + " hook claude-code"} {
		groups, n := removeCairnHooks([]any{newHookGroup(e, c)}, "claude-code")
		if n != 1 || len(groups) != 0 {
			t.Fatalf("%q is not taken for cairn's entry: %d removed, %d left", c, n, len(groups))
		}
	}
	for _, c := range []string{quoteArg(hook) + " codex", "/usr/bin/not-cairn-hook claude-code x", "my-cairn-hook claude-code"} {
		if _, n := removeCairnHooks([]any{newHookGroup(e, c)}, "claude-code"); n != 0 {
			t.Fatalf("%q is taken for cairn's claude-code entry", c)
		}
	}
}
