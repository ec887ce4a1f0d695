package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"cairn/engine"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPServerOverStdio lists and calls every tool of `cairn mcp` with the
// SDK's own client, launching this test binary as the cairn command
// (TestMain dispatches on its name, as the script tests do) over stdin and
// stdout. Each tool's answer is the plumbing command's JSON, and the files
// are what the calls leave.
func TestMCPServerOverStdio(t *testing.T) {
	ctx := context.Background()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "cairn")
	if err := os.Symlink(exe, bin); err != nil {
		t.Fatal(err)
	}
	ws, home := t.TempDir(), t.TempDir()
	cmd := exec.Command(bin, "mcp")
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "CAIRN_HOME="+home)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	var names []string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	want := []string{"apply_patch", "edit_file", "list_items", "list_snapshots", "record_prompt", "redo", "revert_files", "run_shell", "task_control", "undo", "write_file"}
	if !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
	call := func(name string, args map[string]any) map[string]any {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.IsError {
			t.Fatalf("%s: tool error: %v", name, res.Content[0].(*mcp.TextContent).Text)
		}
		b, _ := json.Marshal(res.StructuredContent)
		var out map[string]any
		json.Unmarshal(b, &out)
		return out
	}
	file := func(name string) string {
		b, err := os.ReadFile(filepath.Join(ws, name))
		if err != nil {
			return "(" + err.Error() + ")"
		}
		return string(b)
	}

	if a := call("write_file", map[string]any{"path": "a.txt", "content": "one\n"}); a["snapshot"] == nil || file("a.txt") != "one\n" {
		t.Fatalf("write_file: %v, a.txt %q", a, file("a.txt"))
	}
	call("edit_file", map[string]any{"path": "a.txt", "old_string": "one", "new_string": "two"})
	patch := "*** Begin Patch\n*** Add File: b.txt\n+bee\n*** Update File: a.txt\n@@\n-two\n+three\n*** End Patch\n"
	if a := call("apply_patch", map[string]any{"patch": patch}); len(a["files"].([]any)) != 2 {
		t.Fatalf("apply_patch: %v", a)
	}
	if file("a.txt") != "three\n" || file("b.txt") != "bee\n" {
		t.Fatalf("after the patch: a %q b %q", file("a.txt"), file("b.txt"))
	}
	sh, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_shell", Arguments: map[string]any{"command": "echo made > c.txt; echo hello"}})
	if err != nil || sh.IsError {
		t.Fatalf("run_shell: %v %v", err, sh)
	}
	if text := sh.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, "hello") || file("c.txt") != "made\n" {
		t.Fatalf("run_shell output %q, c.txt %q", text, file("c.txt"))
	}
	// The shell line's result names its stored output: a fork made now
	// (the server owns the session; a fork needs no ownership) reads it.
	mcpForkReadsOutput(t, home, ws, sh.StructuredContent)
	if l := call("list_snapshots", nil); len(l["snapshots"].([]any)) != 3 {
		t.Fatalf("list_snapshots: %v (want write, edit, patch: a shell line is no undo snapshot)", l)
	}
	call("undo", nil)
	if file("a.txt") != "two\n" || !strings.HasPrefix(file("b.txt"), "(") {
		t.Fatalf("undo of the patch: a %q b %q", file("a.txt"), file("b.txt"))
	}
	call("redo", nil)
	if file("b.txt") != "bee\n" {
		t.Fatalf("redo: b %q", file("b.txt"))
	}
	// Item 1 is write_file's call: reverting to it keeps its change and
	// takes back the edit, the patch and the shell line's file.
	if p := call("revert_files", map[string]any{"item": "1"}); p["preview"] != true {
		t.Fatalf("revert_files preview: %v", p)
	}
	if file("c.txt") != "made\n" {
		t.Fatal("a preview changed files")
	}
	call("revert_files", map[string]any{"item": "1", "apply": true})
	if file("a.txt") != "one\n" || !strings.HasPrefix(file("b.txt"), "(") || !strings.HasPrefix(file("c.txt"), "(") {
		t.Fatalf("after revert_files: a %q b %q c %q", file("a.txt"), file("b.txt"), file("c.txt"))
	}
	// A refusal is the tool's error, readable by the model.
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "edit_file", Arguments: map[string]any{"path": "a.txt", "old_string": "nope", "new_string": "x"}})
	if err != nil || !res.IsError {
		t.Fatalf("edit of missing text: %v %v", err, res)
	}
}

// mcpForkReadsOutput forks the workspace's one session at its head and
// reads, in the child, the output a run_shell answer named.
func mcpForkReadsOutput(t *testing.T, home, dir string, answer any) {
	t.Helper()
	ctx := context.Background()
	b, _ := json.Marshal(answer)
	var a struct {
		Output string `json:"output"`
	}
	if json.Unmarshal(b, &a); a.Output == "" {
		t.Fatalf("run_shell answer without an output: %s", b)
	}
	st, err := engine.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	w, err := st.Workspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	l, _, err := w.List(ctx)
	if err != nil || len(l) != 1 {
		t.Fatalf("sessions %v %v", l, err)
	}
	res, err := w.Fork(ctx, l[0].ID, "")
	if err != nil {
		t.Fatal(err)
	}
	rc, err := w.ReadOutput(ctx, res.Session, a.Output)
	if err != nil {
		t.Fatalf("the fork cannot read run_shell's output: %v", err)
	}
	rc.Close()
}

// A request handled once cairn mcp is stopping sees its context cancelled
// when it starts, so mcpCall changes nothing, whatever the goroutines'
// order.
func TestMCPRequestAfterStopStartsCancelled(t *testing.T) {
	stop, stopNow := context.WithCancel(t.Context())
	stopNow()
	for range 100 {
		var started error
		h := cancelOnStop(stop)(func(ctx context.Context, _ string, _ mcp.Request) (mcp.Result, error) {
			started = ctx.Err()
			return nil, nil
		})
		h(t.Context(), "tools/call", nil)
		if started == nil {
			t.Fatal("a request after the stop started with a live context")
		}
	}
}
