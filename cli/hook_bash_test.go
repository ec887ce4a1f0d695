package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"cairn/engine"
)

// Shell commands replayed through the real binary: Claude Code's Bash
// (tool_input of CLI 2.1.144: command, description, timeout,
// run_in_background; hooks reference of 2026-08-22) and Codex's shell
// tools, which its hooks name Bash with {"command": LINE} (PreToolUse and
// PostToolUse on Bash since 0.118.0; schema codex-rs/hooks/schema,
// turn_id and model among the fields). Between Pre and Post the test runs
// the agent's command itself, with sh -c in the event's cwd.

// bash replays a Bash tool call whose command the test runs in dir.
func (h *hookEnv) bash(t *testing.T, id, dir, line string) {
	t.Helper()
	in := map[string]any{"command": line, "description": "run it", "timeout": 120000, "run_in_background": false}
	ev := func(name string) map[string]any {
		m := map[string]any{"hook_event_name": name, "permission_mode": "default", "tool_name": "Bash", "tool_input": in, "tool_use_id": id, "cwd": dir}
		if h.agent == "codex" {
			m["turn_id"], m["model"] = "t1", "gpt-5-codex"
		}
		return m
	}
	h.ok(t, ev("PreToolUse"))
	cmd := exec.Command("/bin/sh", "-c", line)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the agent's command %q: %v\n%s", line, err, out)
	}
	post := ev("PostToolUse")
	post["tool_response"] = map[string]any{"stdout": "", "stderr": "", "interrupted": false, "isImage": false}
	post["duration_ms"] = 40
	h.ok(t, post)
}

// snapshotList is `cairn snapshots --json`: the undo stack's snapshots
// and the records of other calls.
func (h *hookEnv) snapshotList(t *testing.T) (l struct {
	Snapshots []map[string]any `json:"snapshots"`
	Records   []struct {
		ID    string `json:"id"`
		Tool  string `json:"tool"`
		Files []struct {
			Path    string `json:"path"`
			Existed bool   `json:"existed"`
		} `json:"files"`
	} `json:"records"`
}) {
	t.Helper()
	out := h.mustRun(t, "snapshots", "--session", h.session(), "--json")
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return l
}

// markers lists the session's pending markers and walks.
func (h *hookEnv) markers(t *testing.T) []string {
	t.Helper()
	all, _ := filepath.Glob(filepath.Join(h.home, "workspaces", "*", "hooks", h.session(), "*"))
	var m []string
	for _, f := range all {
		if b := filepath.Base(f); b != "items.idx" && b != "transcript.read" { // caches, not markers
			m = append(m, f)
		}
	}
	return m
}

// TestHookBashReplay: Bash commands of each scope kind between a file
// edit and the end of the turn. snapshots lists a record per command that
// changed files (none for one that only reads); undo steps back through
// the file edit only (a shell command is no undo snapshot, seed 001); a
// file revert to the prompt puts every file back exactly, the commands'
// changes and the edit's together.
func TestHookBashReplay(t *testing.T) {
	for _, agent := range []string{"claude-code", "codex"} {
		t.Run(agent, func(t *testing.T) {
			h := &hookEnv{procEnv: newProcEnv(t), sid: "00893aaf-19fa-41d2-8238-13269b9b3ca0", agent: agent}
			h.put(t, "a.go", "package a\n")
			h.put(t, "old.txt", "old\n")
			h.put(t, "b.txt", "bee\n")
			h.put(t, "sub/keep.txt", "keep\n")
			os.Chmod(h.file("b.txt"), 0o755)
			before := map[string]string{"a.go": "package a\n", "old.txt": "old\n", "b.txt": "bee\n", "c.txt": "", "x.out": "", "y.out": "",
				"sub/new.txt": "", "sub/keep.txt": "keep\n"}
			h.ok(t, map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "tidy up"})
			h.tool(t, "Edit", "toolu_01", map[string]any{"file_path": h.file("a.go"), "old_string": "a", "new_string": "b"},
				func() { h.put(t, "a.go", "package b\n") })
			// Literal paths: those paths only.
			h.bash(t, "toolu_02", h.dir, "rm old.txt && mv b.txt c.txt")
			// A loop: the whole workspace, walked before and after.
			h.bash(t, "toolu_03", h.dir, "for f in x y; do echo $f > $f.out; done")
			// Read-only: nothing recorded, no marker.
			h.bash(t, "toolu_04", h.dir, "git status --short; ls -la | head -3")
			if agent == "claude-code" {
				// A relative path from the agent's cwd, a subfolder
				// (Claude Code's cwd follows its shell's cd; the session
				// stays in $CLAUDE_PROJECT_DIR's workspace).
				t.Setenv("CLAUDE_PROJECT_DIR", h.dir)
				h.bash(t, "toolu_05", h.file("sub"), "touch new.txt && echo more >> keep.txt")
			} else {
				// Codex's cwd is the session's: a cd in the line is the
				// whole workspace.
				h.bash(t, "call_05", h.dir, "cd sub && touch new.txt && echo more >> keep.txt")
			}
			h.ok(t, map[string]any{"hook_event_name": "Stop", "stop_hook_active": false})
			after := map[string]string{"a.go": "package b\n", "old.txt": "", "b.txt": "", "c.txt": "bee\n", "x.out": "x\n", "y.out": "y\n",
				"sub/new.txt": "", "sub/keep.txt": "keep\nmore\n"}
			h.want(t, after)

			l := h.snapshotList(t)
			if len(l.Snapshots) != 1 || l.Snapshots[0]["tool"] != "edit" {
				t.Fatalf("snapshots %v, want the edit's", l.Snapshots)
			}
			var got []string
			for _, r := range l.Records {
				var files []string
				for _, f := range r.Files {
					rel, _ := filepath.Rel(h.dir, f.Path)
					files = append(files, filepath.ToSlash(rel))
				}
				got = append(got, r.Tool+":"+strings.Join(files, "+"))
			}
			want := "bash:b.txt+c.txt+old.txt bash:x.out+y.out bash:sub/keep.txt+sub/new.txt"
			if strings.Join(got, " ") != want {
				t.Fatalf("records %v, want %s", got, want)
			}
			out := h.mustRun(t, "snapshots", "--session", h.session())
			if !strings.Contains(out, "Records of shell commands") || strings.Count(out, " bash ") != 3 {
				t.Errorf("snapshots text:\n%s", out)
			}
			if m := h.markers(t); len(m) != 0 {
				t.Fatalf("markers left: %v", m)
			}
			// Undo is the file tools': it takes back the edit, and leaves
			// the commands' files alone.
			h.mustRun(t, "undo", "--session", h.session())
			h.want(t, map[string]string{"a.go": "package a\n", "c.txt": "bee\n", "x.out": "x\n", "sub/keep.txt": "keep\nmore\n"})
			h.mustRun(t, "redo", "--session", h.session())
			h.want(t, after)
			// File revert to the prompt: everything as before it.
			h.mustRun(t, "revert", h.session(), "--to", "1", "--files", "--apply")
			h.want(t, before)
			if fi, err := os.Stat(h.file("b.txt")); err != nil || fi.Mode().Perm()&0o100 == 0 {
				t.Errorf("b.txt lost its executable bit: %v %v", fi, err)
			}
			if _, err := os.Stat(h.file("sub/new.txt")); !os.IsNotExist(err) {
				t.Errorf("sub/new.txt still there: %v", err)
			}
		})
	}
}

// TestHookBashParallel: Bash commands whose hooks run at once (each
// waits for the session's lock) are each recorded with only the path they
// name; a revert to the prompt takes them all back.
func TestHookBashParallel(t *testing.T) {
	h := &hookEnv{procEnv: newProcEnv(t), sid: "s-bash-par", agent: "claude-code"}
	h.ok(t, map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "many commands"})
	const n = 4
	var wg sync.WaitGroup
	errs := make([]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := "f" + string(rune('a'+i))
			line := "echo " + name + " > " + name
			ev := func(event string) map[string]any {
				return map[string]any{"hook_event_name": event, "tool_name": "Bash", "tool_input": map[string]any{"command": line}, "tool_use_id": "toolu_" + name}
			}
			_, errs[i] = h.event(t, ev("PreToolUse"))
			os.WriteFile(h.file(name), []byte(name+"\n"), 0o644)
			_, e := h.event(t, ev("PostToolUse"))
			errs[i] += e
		}()
	}
	wg.Wait()
	for i, e := range errs {
		if e != "" {
			t.Errorf("hook %d: %q", i, e)
		}
	}
	l := h.snapshotList(t)
	if len(l.Records) != n {
		t.Fatalf("%d records, want %d", len(l.Records), n)
	}
	for _, r := range l.Records {
		if len(r.Files) != 1 || r.Files[0].Existed {
			t.Errorf("record %+v: want its one new file", r)
		}
	}
	h.mustRun(t, "revert", h.session(), "--to", "1", "--files", "--apply")
	h.want(t, map[string]string{"fa": "", "fb": "", "fc": "", "fd": ""})
}

// TestHookPostWithoutMarkerOpensNothing: the post-tool hook of a Bash line
// that only reads (its pre-tool hook left no marker) has nothing to settle:
// it does not open the session, so it never waits for the lock another
// owner holds, and says nothing.
func TestHookPostWithoutMarkerOpensNothing(t *testing.T) {
	h := &hookEnv{procEnv: newProcEnv(t), sid: "s-bash-ro", agent: "claude-code"}
	h.ok(t, map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "look around"})
	st, err := engine.Open(h.home)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ws, err := st.Workspace(h.dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ws.OpenAgent(t.Context(), engine.AgentSession{Agent: h.agent, ID: h.sid}, engine.SessionOptions{}, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ev := func(event string) map[string]any {
		return map[string]any{"hook_event_name": event, "tool_name": "Bash", "tool_input": map[string]any{"command": "ls -la"}, "tool_use_id": "toolu_ls"}
	}
	h.ok(t, ev("PreToolUse"))
	h.ok(t, ev("PostToolUse"))
}
