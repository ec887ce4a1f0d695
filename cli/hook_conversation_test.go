package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// transcriptFile is an agent's transcript as the agent writes it, a line at
// a time, in the shape of Claude Code 2.1.196's lines (uuid, parentUuid,
// sessionId, cwd, timestamp, promptId on prompts).
type transcriptFile struct {
	t    *testing.T
	h    *hookEnv
	path string
	last string
}

func newTranscript(t *testing.T, h *hookEnv) *transcriptFile {
	return &transcriptFile{t: t, h: h, path: filepath.Join(t.TempDir(), h.sid+".jsonl")}
}

// line appends one line: typ user or assistant, its uuid, the prompt id
// (user prompts), and its message content; the parent is the line before.
func (tf *transcriptFile) line(typ, uuid, promptID string, content any) {
	tf.t.Helper()
	m := map[string]any{"type": typ, "uuid": uuid, "parentUuid": nil, "sessionId": tf.h.sid, "cwd": tf.h.dir,
		"timestamp": time.Now().UTC().Format("2006-01-02T15:04:05.000Z"), "version": "2.1.196"}
	if tf.last != "" {
		m["parentUuid"] = tf.last
	}
	if promptID != "" {
		m["promptId"] = promptID
	}
	role := "user"
	if typ == "assistant" {
		role = "assistant"
		m["message"] = map[string]any{"id": "msg_" + uuid, "role": role, "model": "claude-sonnet-5", "content": content}
	} else {
		m["message"] = map[string]any{"role": role, "content": content}
	}
	b, _ := json.Marshal(m)
	f, err := os.OpenFile(tf.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		tf.t.Fatal(err)
	}
	f.Write(append(b, '\n'))
	f.Close()
	tf.last = uuid
}

func toolUse(id, name string, input map[string]any) []any {
	return []any{map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}}
}

func toolResult(id, text string) []any {
	return []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": text}}
}

func textBlock(s string) []any { return []any{map[string]any{"type": "text", "text": s}} }

// headPath is the session's head path as "type:text" (texts cut to their
// first word), one entry an item.
func (h *hookEnv) headPath(t *testing.T) string {
	t.Helper()
	var items []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	out := h.mustRun(t, "transcript", h.session(), "--json")
	if err := json.Unmarshal([]byte(out), &items); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var parts []string
	for _, it := range items {
		w := strings.Fields(it.Text)
		first := ""
		if len(w) > 0 {
			first = w[0]
		}
		parts = append(parts, it.Type+":"+first)
	}
	return strings.Join(parts, " ")
}

// The same prompt text twice in a row ("continue") keeps the first
// turn's calls and answer on the path: with Claude Code's prompt ids the
// ids decide, without them the first line is the session's first prompt,
// not the one being submitted. Whether the agent writes the prompt's line
// before its hook runs or after, and whether an import comes after.
func TestHookRepeatedPromptKeepsItsTurn(t *testing.T) {
	for _, c := range []struct {
		name          string
		ids           bool
		lineFirst     bool // the agent writes the prompt's line before its hook runs
		stop, imports bool
	}{
		{"ids", true, false, false, true},
		{"ids-line-first", true, true, true, false},
		{"no-ids", false, false, false, true},
		{"no-ids-line-first", false, true, false, true},
		{"no-ids-stop", false, false, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := &hookEnv{procEnv: newProcEnv(t), sid: "9b1f0c1e-2222-4333-8444-" + strings.Repeat("5", 12), agent: "claude-code"}
			tf := newTranscript(t, h)
			id := func(s string) string {
				if c.ids {
					return s
				}
				return ""
			}
			prompt := func(uuid, pid string) {
				ev := map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "continue", "transcript_path": tf.path}
				if pid != "" {
					ev["prompt_id"] = pid
				}
				if c.lineFirst {
					tf.line("user", uuid, pid, "continue")
				}
				h.ok(t, ev)
				if !c.lineFirst {
					tf.line("user", uuid, pid, "continue")
				}
			}
			stop := func() {
				if c.stop {
					h.ok(t, map[string]any{"hook_event_name": "Stop", "transcript_path": tf.path})
				}
			}
			prompt("u1", id("p1"))
			tf.line("assistant", "a1", "", toolUse("toolu_1", "Bash", map[string]any{"command": "make"}))
			tf.line("user", "r1", "", toolResult("toolu_1", "ok"))
			tf.line("assistant", "a2", "", textBlock("first turn done"))
			stop()
			prompt("u2", id("p2"))
			tf.line("assistant", "a3", "", textBlock("second turn done"))
			stop()
			if c.imports {
				h.mustRun(t, "import", "claude-code", tf.path)
			}
			want := "user:continue tool_call:{\"command\":\"make\"} tool_result:ok assistant:first user:continue assistant:second"
			if got := h.headPath(t); got != want {
				t.Fatalf("head path\n%s\nwant\n%s", got, want)
			}
			if n := len(h.itemLines(t)); n != 6 {
				t.Fatalf("%d items, want 6", n)
			}
		})
	}
}

// The same for Codex, whose prompts carry no id: a rollout with "fix the
// build" twice.
func TestHookCodexRepeatedPrompt(t *testing.T) {
	h := &hookEnv{procEnv: newProcEnv(t), sid: "019b7777-0000-7000-8000-0000000000aa", agent: "codex"}
	path := filepath.Join(t.TempDir(), "rollout-2026-01-01T10-00-00-"+h.sid+".jsonl")
	now := func() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000Z") }
	write := func(typ string, payload map[string]any) {
		b, _ := json.Marshal(map[string]any{"timestamp": now(), "type": typ, "payload": payload})
		f, _ := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		f.Write(append(b, '\n'))
		f.Close()
	}
	msg := func(role, text string) {
		kind := "input_text"
		if role == "assistant" {
			kind = "output_text"
		}
		write("response_item", map[string]any{"type": "message", "role": role, "content": []any{map[string]any{"type": kind, "text": text}}})
	}
	write("session_meta", map[string]any{"id": h.sid, "timestamp": now(), "cwd": h.dir, "originator": "codex_cli_rs", "cli_version": "0.124.0"})
	prompt := func() {
		h.ok(t, map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "fix the build", "transcript_path": path})
		msg("user", "fix the build")
	}
	prompt()
	write("response_item", map[string]any{"type": "function_call", "name": "exec_command", "arguments": `{"cmd":"make"}`, "call_id": "call_1"})
	write("response_item", map[string]any{"type": "function_call_output", "call_id": "call_1", "output": "ok"})
	msg("assistant", "first turn done")
	prompt()
	msg("assistant", "second turn done")
	h.ok(t, map[string]any{"hook_event_name": "Stop", "transcript_path": path})
	want := "user:fix tool_call:{\"cmd\":\"make\"} tool_result:ok assistant:first user:fix assistant:second"
	if got := h.headPath(t); got != want {
		t.Fatalf("head path\n%s\nwant\n%s", got, want)
	}
}

// Stop brings the turn's answers and calls in, and SessionEnd what came
// after: right after the agent is done, the session holds its last turn,
// with no prompt after it and no import.
func TestHookTurnEndBringsTheTurnIn(t *testing.T) {
	h := &hookEnv{procEnv: newProcEnv(t), sid: "9b1f0c1e-2222-4333-8444-666666666666", agent: "claude-code"}
	tf := newTranscript(t, h)
	h.ok(t, map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "list the files", "prompt_id": "p1", "transcript_path": tf.path})
	tf.line("user", "u1", "p1", "list the files")
	tf.line("assistant", "a1", "", toolUse("toolu_1", "Bash", map[string]any{"command": "ls"}))
	tf.line("user", "r1", "", toolResult("toolu_1", "a.txt"))
	tf.line("assistant", "a2", "", textBlock("One file."))
	h.ok(t, map[string]any{"hook_event_name": "Stop", "stop_hook_active": false, "transcript_path": tf.path})
	if got, want := h.headPath(t), "user:list tool_call:{\"command\":\"ls\"} tool_result:a.txt assistant:One"; got != want {
		t.Fatalf("after Stop:\n%s\nwant\n%s", got, want)
	}
	// Interrupted: no Stop; the session ends.
	h.ok(t, map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "and the hidden ones", "prompt_id": "p2", "transcript_path": tf.path})
	tf.line("user", "u2", "p2", "and the hidden ones")
	tf.line("assistant", "a3", "", textBlock("Also .env."))
	h.ok(t, map[string]any{"hook_event_name": "SessionEnd", "reason": "prompt_input_exit", "transcript_path": tf.path})
	if got := h.headPath(t); !strings.HasSuffix(got, "user:and assistant:Also") {
		t.Fatalf("after SessionEnd:\n%s", got)
	}
}

// A file revert to an item inside a hooked turn reverts the calls after
// that item only: each change record names the agent's call, whose item
// the transcript brings in.
func TestHookRevertInsideTurn(t *testing.T) {
	h := &hookEnv{procEnv: newProcEnv(t), sid: "9b1f0c1e-2222-4333-8444-777777777777", agent: "claude-code"}
	tf := newTranscript(t, h)
	h.put(t, "a.txt", "A0\n")
	h.put(t, "b.txt", "B0\n")
	h.ok(t, map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "edit both", "prompt_id": "p1", "transcript_path": tf.path})
	tf.line("user", "u1", "p1", "edit both")
	for _, f := range []string{"a", "b"} {
		in := map[string]any{"file_path": h.file(f + ".txt"), "content": strings.ToUpper(f) + "1\n"}
		tf.line("assistant", "c"+f, "", toolUse("toolu_"+f, "Write", in))
		h.tool(t, "Write", "toolu_"+f, in, func() { h.put(t, f+".txt", strings.ToUpper(f)+"1\n") })
		tf.line("user", "r"+f, "", toolResult("toolu_"+f, "ok"))
	}
	h.ok(t, map[string]any{"hook_event_name": "Stop", "transcript_path": tf.path})
	h.mustRun(t, "import", "claude-code", tf.path) // adds nothing: Stop brought the turn in
	// 1 prompt, 2 call a, 3 result a, 4 call b, 5 result b.
	if got, want := h.headPath(t), "user:edit tool_call:{\"content\":\"A1\\n\",\"file_path\":\""+h.file("a.txt")+"\"} tool_result:ok tool_call:{\"content\":\"B1\\n\",\"file_path\":\""+h.file("b.txt")+"\"} tool_result:ok"; got != want {
		t.Fatalf("head path\n%s\nwant\n%s", got, want)
	}
	preview := func(to string) []string {
		var r struct {
			Files struct {
				Files []struct{ Path string } `json:"files"`
			} `json:"files"`
		}
		out := h.mustRun(t, "revert", h.session(), "--to", to, "--files", "--json")
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		var ps []string
		for _, f := range r.Files.Files {
			ps = append(ps, filepath.Base(f.Path))
		}
		slices.Sort(ps)
		return ps
	}
	// A prompt reverts its own turn; any other item keeps what was done
	// up to it, its own call's change included.
	for to, want := range map[string]string{"1": "a.txt b.txt", "2": "b.txt", "3": "b.txt", "4": "", "5": ""} {
		if got := strings.Join(preview(to), " "); got != want {
			t.Errorf("revert --to %s previews %q, want %q", to, got, want)
		}
	}
	h.mustRun(t, "revert", h.session(), "--to", "3", "--files", "--apply")
	h.want(t, map[string]string{"a.txt": "A1\n", "b.txt": "B0\n"})
}
