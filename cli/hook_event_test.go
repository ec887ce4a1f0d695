package cli

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"cairn/engine"
)

// Hook payloads replayed through the real binary. Their shapes are from
// the agents' hook references as read for cairn (Claude Code hooks
// reference, docs mirror of 2026-08-22, tool inputs as captured from CLI
// 2.1.144; Codex hook schemas codex-rs/hooks/schema, apply_patch events
// since 0.123.0, patch grammar tool_apply_patch.lark). Between each Pre and
// Post the test plays the agent's own write.

type hookEnv struct {
	*procEnv
	sid   string // the agent's session id
	agent string
}

func (h *hookEnv) event(t *testing.T, ev map[string]any) (int, string) {
	t.Helper()
	code, _, errs := h.eventOut(t, ev)
	return code, errs
}

// eventOut replays ev and returns the exit code, stdout and stderr.
func (h *hookEnv) eventOut(t *testing.T, ev map[string]any) (int, string, string) {
	t.Helper()
	ev["session_id"] = h.sid
	if _, ok := ev["cwd"]; !ok {
		ev["cwd"] = h.dir
	}
	if _, ok := ev["transcript_path"]; !ok {
		ev["transcript_path"] = "/home/u/.claude/projects/-w/" + h.sid + ".jsonl"
	}
	b, _ := json.Marshal(ev)
	// As the agent runs it: exactly the command `hook install` writes
	// (parsed with the hook grammar alone, grammarFor), in the workspace,
	// the state folder in CAIRN_HOME.
	cmd := exec.Command(h.bin, "hook", h.agent)
	cmd.Dir, cmd.Env = h.dir, append(os.Environ(), "CAIRN_HOME="+h.home)
	cmd.Stdin = strings.NewReader(string(b))
	var outb, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &outb, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), outb.String(), errb.String()
}

// ok replays ev and wants exit 0 and nothing on stderr.
func (h *hookEnv) ok(t *testing.T, ev map[string]any) {
	t.Helper()
	if code, errs := h.event(t, ev); code != 0 || errs != "" {
		t.Fatalf("%v: exit %d, stderr %q", ev["hook_event_name"], code, errs)
	}
}

// tool replays PreToolUse, then write (the agent's tool), then PostToolUse.
func (h *hookEnv) tool(t *testing.T, name, id string, input map[string]any, write func()) {
	t.Helper()
	h.ok(t, map[string]any{"hook_event_name": "PreToolUse", "permission_mode": "default", "tool_name": name, "tool_input": input, "tool_use_id": id})
	write()
	h.ok(t, map[string]any{"hook_event_name": "PostToolUse", "permission_mode": "default", "tool_name": name, "tool_input": input,
		"tool_response": map[string]any{"success": true}, "tool_use_id": id, "duration_ms": 12})
}

func (h *hookEnv) file(name string) string { return filepath.Join(h.dir, name) }

func (h *hookEnv) put(t *testing.T, name, content string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(h.file(name)), 0o755)
	if err := os.WriteFile(h.file(name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// want checks each file's content ("" = absent).
func (h *hookEnv) want(t *testing.T, files map[string]string) {
	t.Helper()
	for name, want := range files {
		b, err := os.ReadFile(h.file(name))
		got := string(b)
		if err != nil {
			got = ""
		}
		if got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}

func (h *hookEnv) session() string { return engine.ImportSessionID(h.agent, h.sid) }

func (h *hookEnv) snapshots(t *testing.T) []map[string]any {
	t.Helper()
	var l struct {
		Snapshots []map[string]any `json:"snapshots"`
	}
	out := h.mustRun(t, "snapshots", "--session", h.session(), "--json")
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return l.Snapshots
}

func TestHookClaudeCodeReplay(t *testing.T) {
	h := &hookEnv{procEnv: newProcEnv(t), sid: "00893aaf-19fa-41d2-8238-13269b9b3ca0", agent: "claude-code"}
	h.put(t, "src/a.go", "package a\nvar x = 1\n")
	h.put(t, "nb.ipynb", `{"cells":[]}`)
	h.ok(t, map[string]any{"hook_event_name": "SessionStart", "source": "startup", "model": "claude-sonnet-5"})
	h.ok(t, map[string]any{"hook_event_name": "UserPromptSubmit", "permission_mode": "default", "prompt": "Change x and add a file"})

	h.tool(t, "Edit", "toolu_01ABC123", map[string]any{"file_path": h.file("src/a.go"), "old_string": "x = 1", "new_string": "x = 2", "replace_all": false},
		func() { h.put(t, "src/a.go", "package a\nvar x = 2\n") })
	h.tool(t, "Write", "toolu_02", map[string]any{"file_path": h.file("new/b.txt"), "content": "hello\n"},
		func() { h.put(t, "new/b.txt", "hello\n") })
	h.tool(t, "MultiEdit", "toolu_03", map[string]any{"file_path": h.file("src/a.go"), "edits": []any{map[string]any{"old_string": "2", "new_string": "3"}}},
		func() { h.put(t, "src/a.go", "package a\nvar x = 3\n") })
	h.tool(t, "NotebookEdit", "toolu_04", map[string]any{"notebook_path": h.file("nb.ipynb"), "cell_id": "c1", "new_source": "print(1)", "cell_type": "code", "edit_mode": "insert"},
		func() { h.put(t, "nb.ipynb", `{"cells":[{"source":"print(1)"}]}`) })
	// A tool that failed half-way: PostToolUseFailure settles what it wrote.
	h.ok(t, map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": map[string]any{"file_path": h.file("half.txt"), "content": "all"}, "tool_use_id": "toolu_f"})
	h.put(t, "half.txt", "ha")
	h.ok(t, map[string]any{"hook_event_name": "PostToolUseFailure", "tool_name": "Write", "tool_input": map[string]any{"file_path": h.file("half.txt")}, "tool_use_id": "toolu_f", "error": "disk full", "is_interrupt": false})
	// A tool that changed nothing (an Edit the agent refused) records nothing.
	h.tool(t, "Edit", "toolu_05", map[string]any{"file_path": h.file("src/a.go"), "old_string": "nope", "new_string": "x"}, func() {})
	// A file outside the workspace and a tool cairn does not record.
	h.tool(t, "Write", "toolu_06", map[string]any{"file_path": filepath.Join(t.TempDir(), "elsewhere"), "content": "x"}, func() {})
	h.tool(t, "Bash", "toolu_07", map[string]any{"command": "true"}, func() {})
	h.ok(t, map[string]any{"hook_event_name": "Stop", "stop_hook_active": false, "last_assistant_message": "Done.", "background_tasks": []any{}})
	h.ok(t, map[string]any{"hook_event_name": "SessionEnd", "reason": "other"})

	if n := len(h.snapshots(t)); n != 5 {
		t.Fatalf("%d snapshots, want 5 (Edit, Write, MultiEdit, NotebookEdit, the failed Write)", n)
	}
	// The session is the agent's: its prompt, and its meta.
	items, _ := filepath.Glob(filepath.Join(h.home, "workspaces", "*", "sessions", h.session()+".items.jsonl"))
	if len(items) != 1 {
		t.Fatalf("items journal %v", items)
	}
	b, _ := os.ReadFile(items[0])
	for _, want := range []string{`"agent":{"agent":"claude-code","session":"` + h.sid + `","transcript":`, `"Change x and add a file"`, `"kind":"turn"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("items journal lacks %s:\n%s", want, b)
		}
	}

	// Undo all five: every file as it was before the prompt.
	for range 5 {
		h.mustRun(t, "undo", "--session", h.session())
	}
	h.want(t, map[string]string{"src/a.go": "package a\nvar x = 1\n", "new/b.txt": "", "nb.ipynb": `{"cells":[]}`, "half.txt": ""})
	// Redo all: the agent's work back.
	for range 5 {
		h.mustRun(t, "redo", "--session", h.session())
	}
	h.want(t, map[string]string{"src/a.go": "package a\nvar x = 3\n", "new/b.txt": "hello\n", "nb.ipynb": `{"cells":[{"source":"print(1)"}]}`, "half.txt": "ha"})
	// File revert to the prompt: every file as it was before it.
	h.mustRun(t, "revert", h.session(), "--to", "1", "--files", "--apply")
	h.want(t, map[string]string{"src/a.go": "package a\nvar x = 1\n", "new/b.txt": "", "nb.ipynb": `{"cells":[]}`, "half.txt": ""})
}

func TestHookCodexApplyPatchReplay(t *testing.T) {
	h := &hookEnv{procEnv: newProcEnv(t), sid: "019a2b3c-0000-7000-8000-000000000001", agent: "codex"}
	h.put(t, "keep.txt", "one\ntwo\n")
	h.put(t, "gone.txt", "bye\n")
	h.put(t, "old/name.txt", "moved\n")
	h.ok(t, map[string]any{"hook_event_name": "UserPromptSubmit", "turn_id": "t1", "model": "gpt-5-codex", "prompt": "patch them"})
	patchText := "*** Begin Patch\n*** Add File: added.txt\n+new\n*** Update File: keep.txt\n@@\n one\n-two\n+TWO\n*** Delete File: gone.txt\n*** Update File: old/name.txt\n*** Move to: new/name.txt\n@@\n-moved\n+moved!\n*** End Patch\n"
	h.tool(t, "apply_patch", "call_abc", map[string]any{"command": patchText}, func() {
		h.put(t, "added.txt", "new\n")
		h.put(t, "keep.txt", "one\nTWO\n")
		os.Remove(h.file("gone.txt"))
		os.Remove(h.file("old/name.txt"))
		h.put(t, "new/name.txt", "moved!\n")
	})
	h.ok(t, map[string]any{"hook_event_name": "Stop", "turn_id": "t1", "model": "gpt-5-codex", "stop_hook_active": false})
	snaps := h.snapshots(t)
	if len(snaps) != 1 {
		t.Fatalf("%d snapshots, want the patch's one", len(snaps))
	}
	h.mustRun(t, "undo", "--session", h.session())
	h.want(t, map[string]string{"added.txt": "", "keep.txt": "one\ntwo\n", "gone.txt": "bye\n", "old/name.txt": "moved\n", "new/name.txt": ""})
}

func TestHookNeverInTheWay(t *testing.T) {
	h := &hookEnv{procEnv: newProcEnv(t), sid: "s-1", agent: "claude-code"}
	// Not JSON, no session id, a patch that does not parse: one line on
	// stderr, exit 0.
	for _, in := range []string{"not json", `{"hook_event_name":"Stop"}`} {
		code, _, errs := h.runIn(t, in, "hook", "claude-code")
		if code != 0 || strings.Count(errs, "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q", in, code, errs)
		}
	}
	h.agent = "codex"
	code, errs := h.event(t, map[string]any{"hook_event_name": "PreToolUse", "tool_name": "apply_patch", "tool_input": map[string]any{"command": "*** Begin Patch\n*** Frobnicate\n"}, "tool_use_id": "c1"})
	if code != 0 || !strings.Contains(errs, "apply_patch") {
		t.Errorf("bad patch: exit %d, stderr %q", code, errs)
	}
	// A Post with no Pre (the Pre failed) records nothing and says nothing.
	h.ok(t, map[string]any{"hook_event_name": "PostToolUse", "tool_name": "apply_patch", "tool_input": map[string]any{"command": ""}, "tool_use_id": "c2"})
}

func TestHookRequiredBlocks(t *testing.T) {
	h := &hookEnv{procEnv: newProcEnv(t), sid: "s-req", agent: "claude-code"}
	os.WriteFile(filepath.Join(h.home, "config.json"), []byte(`{"snapshots.required": true, "snapshots.max_file_bytes": 4}`), 0o644)
	h.put(t, "big.txt", "more than four bytes")
	h.ok(t, map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "edit big"})
	code, errs := h.event(t, map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": map[string]any{"file_path": h.file("big.txt"), "content": "x"}, "tool_use_id": "toolu_9"})
	if code != 2 || !strings.Contains(errs, "snapshots.required") || !strings.Contains(errs, "big.txt") || strings.Count(errs, "\n") != 1 {
		t.Fatalf("required refusal: exit %d, stderr %q", code, errs)
	}
}

// Parallel tool calls run their hooks at once: each waits for the
// session's lock instead of failing busy, and every edit is recorded.
func TestHookParallelWaits(t *testing.T) {
	h := &hookEnv{procEnv: newProcEnv(t), sid: "s-par", agent: "claude-code"}
	h.ok(t, map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "many files"})
	const n = 4
	for i := range n {
		h.put(t, "f"+string(rune('a'+i)), "before")
	}
	var wg sync.WaitGroup
	errs := make([]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := "f" + string(rune('a'+i))
			id := "toolu_p" + name
			in := map[string]any{"file_path": h.file(name), "content": "after"}
			_, errs[i] = h.event(t, map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": in, "tool_use_id": id})
			os.WriteFile(h.file(name), []byte("after"), 0o644)
			_, e := h.event(t, map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Write", "tool_input": in, "tool_use_id": id})
			errs[i] += e
		}()
	}
	wg.Wait()
	for i, e := range errs {
		if e != "" {
			t.Errorf("hook %d: %q", i, e)
		}
	}
	if got := len(h.snapshots(t)); got != n {
		t.Fatalf("%d snapshots, want %d", got, n)
	}
}

// A pending marker whose Post never came (the agent was killed) is
// removed after a day and blocks nothing meanwhile.
func TestHookStaleMarker(t *testing.T) {
	h := &hookEnv{procEnv: newProcEnv(t), sid: "s-stale", agent: "claude-code"}
	h.put(t, "a", "1")
	h.ok(t, map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "p"})
	h.ok(t, map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": map[string]any{"file_path": h.file("a")}, "tool_use_id": "toolu_dead"})
	markers, _ := filepath.Glob(filepath.Join(h.home, "workspaces", "*", "hooks", h.session(), "*.json"))
	if len(markers) != 1 {
		t.Fatalf("markers %v", markers)
	}
	// A later edit works while the marker is there.
	h.tool(t, "Write", "toolu_next", map[string]any{"file_path": h.file("a")}, func() { h.put(t, "a", "2") })
	old := time.Now().Add(-25 * time.Hour)
	os.Chtimes(markers[0], old, old)
	h.tool(t, "Write", "toolu_last", map[string]any{"file_path": h.file("a")}, func() { h.put(t, "a", "3") })
	if _, err := os.Stat(markers[0]); !os.IsNotExist(err) {
		t.Fatalf("stale marker still there: %v", err)
	}
	if got := len(h.snapshots(t)); got != 2 {
		t.Fatalf("%d snapshots, want 2", got)
	}
}

// Claude Code's event cwd follows the agent's cd; its project folder
// ($CLAUDE_PROJECT_DIR) does not: the session stays in the project's
// workspace, and a relative path resolves against the cwd.
func TestHookClaudeProjectDir(t *testing.T) {
	h := &hookEnv{procEnv: newProcEnv(t), sid: "s-cd", agent: "claude-code"}
	t.Setenv("CLAUDE_PROJECT_DIR", h.dir)
	h.put(t, "sub/a.txt", "a0")
	sub := h.file("sub")
	h.ok(t, map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "p"})
	in := map[string]any{"file_path": h.file("sub/a.txt")}
	h.ok(t, map[string]any{"hook_event_name": "PreToolUse", "cwd": sub, "tool_name": "Write", "tool_input": in, "tool_use_id": "t1"})
	h.put(t, "sub/a.txt", "a1")
	h.ok(t, map[string]any{"hook_event_name": "PostToolUse", "cwd": sub, "tool_name": "Write", "tool_input": in, "tool_use_id": "t1"})
	if got := len(h.snapshots(t)); got != 1 {
		t.Fatalf("%d snapshots in the project's session, want 1", got)
	}
	h.mustRun(t, "undo", "--session", h.session())
	h.want(t, map[string]string{"sub/a.txt": "a0"})
}
