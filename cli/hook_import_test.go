package cli

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHookThenImportAddsOnlyWhatIsMissing: a session the hooks made holds
// the prompts; importing the agent's transcript of it adds the answers
// and calls, never the prompts again. The first prompt carries Claude
// Code's prompt id (hook prompt_id and transcript promptId, CLI
// 2.1.196+); the second does not (older CLIs), and is found by its text
// and time. The transcript lines follow CLI 2.1.196's shape (uuid,
// parentUuid, sessionId, cwd, timestamp, promptId on user lines).
func TestHookThenImportAddsOnlyWhatIsMissing(t *testing.T) {
	h := &hookEnv{procEnv: newProcEnv(t), sid: "258c7280-ae70-4798-800f-63464d01a85d", agent: "claude-code"}
	h.put(t, "a.go", "package a\n")
	now := time.Now().UTC()
	ts := func(d time.Duration) string { return now.Add(d).Format("2006-01-02T15:04:05.000Z") }
	env := func(uuid, parent string, d time.Duration) map[string]any {
		m := map[string]any{"uuid": uuid, "parentUuid": nil, "isSidechain": false, "userType": "external", "cwd": h.dir,
			"sessionId": h.sid, "version": "2.1.196", "gitBranch": "main", "timestamp": ts(d)}
		if parent != "" {
			m["parentUuid"] = parent
		}
		return m
	}
	with := func(m map[string]any, kv ...any) map[string]any {
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	lines := []map[string]any{
		with(env("u1", "", -3*time.Second), "type", "user", "promptId", "7d1c0c1e-1111-4222-8333-444455556666",
			"message", map[string]any{"role": "user", "content": "Change a"}),
		with(env("a1", "u1", -2*time.Second), "type", "assistant", "requestId", "req_1", "message", map[string]any{"id": "msg_1", "role": "assistant", "model": "claude-sonnet-5",
			"content": []any{map[string]any{"type": "tool_use", "id": "toolu_01", "name": "Edit", "input": map[string]any{"file_path": h.file("a.go")}}}}),
		with(env("r1", "a1", -2*time.Second), "type", "user", "message", map[string]any{"role": "user",
			"content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_01", "content": "ok"}}}),
		with(env("a2", "r1", -time.Second), "type", "assistant", "message", map[string]any{"id": "msg_2", "role": "assistant", "model": "claude-sonnet-5",
			"content": []any{map[string]any{"type": "text", "text": "Changed."}}}),
		with(env("u2", "a2", 0), "type", "user", "message", map[string]any{"role": "user",
			"content": []any{map[string]any{"type": "text", "text": "Now run the tests"}, map[string]any{"type": "image", "source": map[string]any{}}}}),
		with(env("a3", "u2", time.Second), "type", "assistant", "message", map[string]any{"id": "msg_3", "role": "assistant", "model": "claude-sonnet-5",
			"content": []any{map[string]any{"type": "text", "text": "All pass."}}}),
	}
	src := filepath.Join(t.TempDir(), h.sid+".jsonl")
	var b strings.Builder
	upTo := func(n int) { // the agent has written n lines of its transcript
		b.Reset()
		for _, l := range lines[:n] {
			j, _ := json.Marshal(l)
			b.Write(append(j, '\n'))
		}
		os.WriteFile(src, []byte(b.String()), 0o600)
	}
	ev := func(m map[string]any) map[string]any { m["transcript_path"] = src; return m }

	h.ok(t, ev(map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "Change a", "prompt_id": "7d1c0c1e-1111-4222-8333-444455556666"}))
	upTo(1)
	h.tool(t, "Edit", "toolu_01", map[string]any{"file_path": h.file("a.go"), "old_string": "a", "new_string": "b"},
		func() { h.put(t, "a.go", "package b\n") })
	upTo(4)
	h.ok(t, ev(map[string]any{"hook_event_name": "Stop", "stop_hook_active": false}))
	// The agent wrote the new prompt before its hook ran (the transcript
	// is written asynchronously: either order happens).
	upTo(5)
	h.ok(t, ev(map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "Now run the tests"}))
	upTo(6)
	h.ok(t, ev(map[string]any{"hook_event_name": "Stop", "stop_hook_active": false}))

	h.mustRun(t, "import", "claude-code", src)
	items := h.itemLines(t)
	var users, all []string
	parent := map[string]string{}
	byText := map[string]string{}
	for _, it := range items {
		all = append(all, it.Type)
		parent[it.ID] = it.Parent
		byText[it.Text] = it.ID
		if it.Type == "user" {
			users = append(users, it.Text)
		}
	}
	if strings.Join(users, "|") != "Change a|Now run the tests" {
		t.Fatalf("user items %q (all %v)", users, all)
	}
	if len(items) != 6 {
		t.Fatalf("%d items, want the 2 prompts and 4 imported: %v", len(items), all)
	}
	// One path, as in the transcript: each prompt under the answer
	// before it (the prompt hook brought the transcript in first).
	var path []string
	for id := byText["All pass."]; id != ""; id = parent[id] {
		for _, it := range items {
			if it.ID == id {
				path = append([]string{it.Type}, path...)
			}
		}
	}
	if strings.Join(path, ",") != "user,tool_call,tool_result,assistant,user,assistant" {
		t.Fatalf("path from the head %v: %+v", path, items)
	}
	// Again: nothing new.
	_ = upTo
	os.WriteFile(src, []byte(b.String()+"\n"), 0o600) // grown, so the import reads it again
	h.mustRun(t, "import", "claude-code", src)
	if n := len(h.itemLines(t)); n != 6 {
		t.Fatalf("a second import made %d items", n)
	}
}

type itemSeen struct {
	Kind, ID, Type, Parent, Text string
}

// itemLines is the item lines of the hooks' session.
func (h *hookEnv) itemLines(t *testing.T) []itemSeen {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(h.home, "workspaces", "*", "sessions", h.session()+".items.jsonl"))
	if len(names) != 1 {
		t.Fatalf("items journal %v", names)
	}
	f, err := os.Open(names[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []itemSeen
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l struct {
			Kind   string  `json:"kind"`
			ID     string  `json:"id"`
			Type   string  `json:"type"`
			Parent *string `json:"parent"`
			Text   *string `json:"text"`
		}
		if json.Unmarshal(sc.Bytes(), &l) != nil || l.Kind != "item" {
			continue
		}
		it := itemSeen{Kind: l.Kind, ID: l.ID, Type: l.Type}
		if l.Parent != nil {
			it.Parent = *l.Parent
		}
		if l.Text != nil {
			it.Text = *l.Text
		}
		out = append(out, it)
	}
	return out
}
