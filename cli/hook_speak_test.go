package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/engine"
)

// systemMessage is the message a hook's JSON answer shows the user ("" for
// no answer), checking that stdout holds one JSON object and nothing else.
func systemMessage(t *testing.T, stdout string) string {
	t.Helper()
	if stdout == "" {
		return ""
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(stdout), &out); err != nil || strings.Count(stdout, "\n") != 1 {
		t.Fatalf("stdout is not one JSON object: %q", stdout)
	}
	m, _ := out["systemMessage"].(string)
	return m
}

// A hook that cannot record tells the user so through its JSON answer
// (exit 0, so the agent goes on): a typo in config.json, a session a
// person has open in cairn, an event that is not JSON. Claude Code and
// Codex both show systemMessage.
func TestHookFailureIsSaid(t *testing.T) {
	for _, agent := range []string{"claude-code", "codex"} {
		t.Run(agent, func(t *testing.T) {
			h := &hookEnv{procEnv: newProcEnv(t), sid: "s-say-" + agent, agent: agent}
			h.put(t, "f.txt", "a\n")
			h.ok(t, map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "edit f"})

			// A typo in config.json stops recording: said at every event.
			os.WriteFile(filepath.Join(h.home, "config.json"), []byte(`{"snapshot":{"enabled":true}}`), 0o644)
			tool, in := "Write", map[string]any{"file_path": h.file("f.txt"), "content": "b\n"}
			if agent == "codex" {
				tool, in = "apply_patch", map[string]any{"command": "*** Begin Patch\n*** Update File: f.txt\n@@\n-a\n+b\n*** End Patch\n"}
			}
			for _, ev := range []map[string]any{
				{"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": in, "tool_use_id": "t1"},
				{"hook_event_name": "UserPromptSubmit", "prompt": "again"},
			} {
				code, out, errs := h.eventOut(t, ev)
				msg := systemMessage(t, out)
				if code != 0 || !strings.Contains(msg, " not be recorded") && !strings.Contains(msg, "not recorded") || !strings.Contains(msg, "config.json") || !strings.Contains(errs, "config.json") {
					t.Errorf("%v with a bad config: exit %d, systemMessage %q, stderr %q", ev["hook_event_name"], code, msg, errs)
				}
			}
			os.Remove(filepath.Join(h.home, "config.json"))

			// A session a person has open in cairn (here this test process,
			// as the REPL would): said at once, naming the owner.
			st, err := engine.Open(h.home)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			ws, err := st.Workspace(h.dir)
			if err != nil {
				t.Fatal(err)
			}
			s, err := ws.Open(context.Background(), h.session(), engine.SessionOptions{})
			if err != nil {
				t.Fatal(err)
			}
			code, out, _ := h.eventOut(t, map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "while open"})
			msg := systemMessage(t, out)
			if code != 0 || !strings.Contains(msg, "open in cairn (pid "+itoa(os.Getpid())+")") || !strings.Contains(msg, "/exit") {
				t.Errorf("session open elsewhere: exit %d, systemMessage %q", code, msg)
			}
			s.Close()
			if items := hookTranscript(t, h); strings.Contains(items, "while open") {
				t.Errorf("a prompt was recorded while the session was open elsewhere: %s", items)
			}

			// Not JSON: said too.
			code, stdout, _ := h.runIn(t, "not json", "hook", agent)
			if msg := systemMessage(t, stdout); code != 0 || !strings.Contains(msg, "not JSON") {
				t.Errorf("not JSON: exit %d, systemMessage %q", code, msg)
			}
			// A hook that records says nothing on stdout.
			code, out, errs := h.eventOut(t, map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "fine"})
			if code != 0 || out != "" || errs != "" {
				t.Errorf("a recorded prompt: exit %d, stdout %q, stderr %q", code, out, errs)
			}
		})
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// hookTranscript is the session's items, one a line.
func hookTranscript(t *testing.T, h *hookEnv) string {
	t.Helper()
	return h.mustRun(t, "transcript", "--all", h.session())
}

// A post-tool event bigger than any fixed bound (Claude Code's
// tool_response repeats the file an Edit wrote) is read: the edit is
// recorded and undone.
func TestHookEventOverAnyBound(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 70 MB through a pipe")
	}
	h := &hookEnv{procEnv: newProcEnv(t), sid: "s-big", agent: "claude-code"}
	h.put(t, "big.sql", "v1\n")
	h.ok(t, map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "edit big"})
	in := map[string]any{"file_path": h.file("big.sql"), "old_string": "v1", "new_string": "v2"}
	h.ok(t, map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_input": in, "tool_use_id": "te1"})
	h.put(t, "big.sql", "v2\n")
	huge := strings.Repeat("INSERT INTO t VALUES (1);\n", 70<<20/26)
	h.ok(t, map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Edit", "tool_input": in, "tool_use_id": "te1",
		"tool_response": map[string]any{"filePath": h.file("big.sql"), "originalFile": huge, "structuredPatch": []any{huge[:1000]}}})
	if n := len(h.snapshots(t)); n != 1 {
		t.Fatalf("%d snapshots, want the edit's", n)
	}
	h.mustRun(t, "undo", "--session", h.session())
	h.want(t, map[string]string{"big.sql": "v1\n"})
}

// An edit written through a symbolic link (one agent's notes file linked
// to another's, as people link them) is recorded as the file it wrote, so
// undo puts that file back; the link stays a link.
func TestHookEditThroughLink(t *testing.T) {
	h := &hookEnv{procEnv: newProcEnv(t), sid: "s-link", agent: "claude-code"}
	h.put(t, "AGENTS.md", "rules v1\n")
	if err := os.Symlink("AGENTS.md", h.file("CLAUDE.md")); err != nil {
		t.Fatal(err)
	}
	h.ok(t, map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "edit the rules"})
	h.tool(t, "Edit", "toolu_l1", map[string]any{"file_path": h.file("CLAUDE.md"), "old_string": "v1", "new_string": "v2"},
		func() { os.WriteFile(h.file("CLAUDE.md"), []byte("rules v2\n"), 0o644) }) // through the link
	snaps := h.snapshots(t)
	if len(snaps) != 1 || !strings.Contains(mustJSON(snaps[0]), "AGENTS.md") {
		t.Fatalf("snapshots %v, want one of AGENTS.md", snaps)
	}
	h.mustRun(t, "undo", "--session", h.session())
	h.want(t, map[string]string{"AGENTS.md": "rules v1\n"})
	if fi, err := os.Lstat(h.file("CLAUDE.md")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("CLAUDE.md is no longer a link: %v %v", fi, err)
	}
}

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }
