package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpClient starts `cairn mcp` in a new workspace under the SDK's client.
func mcpClient(t *testing.T) (*mcp.ClientSession, *procEnv) {
	t.Helper()
	e := newProcEnv(t)
	cmd := exec.Command(e.bin, "mcp")
	cmd.Dir = e.dir
	cmd.Env = append(os.Environ(), "CAIRN_HOME="+e.home)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, e
}

// mcpResult calls a tool and returns its result, its text and its
// structured content.
func mcpResult(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, string, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	text := ""
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			text = tc.Text
		}
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out map[string]any
	json.Unmarshal(b, &out)
	return res, text, out
}

// What a model needs of cairn mcp's answers: the exit code of a shell line
// in the text it reads and a failing command marked as an error; the id of
// the item every call makes, failed or not, and a tool that lists the
// items, so revert_files never needs a guess; hints on each tool; a
// session titled by its first prompt; edit_file's replace_all.
func TestMCPAnswersAModelCanUse(t *testing.T) {
	ctx := context.Background()
	cs, e := mcpClient(t)
	if ins := cs.InitializeResult().Instructions; !strings.Contains(ins, "record_prompt") || !strings.Contains(ins, "item") {
		t.Errorf("instructions %q", ins)
	}
	hints := map[string]*mcp.ToolAnnotations{}
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		hints[tool.Name] = tool.Annotations
	}
	for name, h := range hints {
		if h == nil || h.DestructiveHint == nil || h.OpenWorldHint == nil {
			t.Errorf("%s: annotations %+v", name, h)
		}
	}
	for _, name := range []string{"list_snapshots", "list_items"} {
		if h := hints[name]; h == nil || !h.ReadOnlyHint {
			t.Errorf("%s is not marked read-only", name)
		}
	}
	for _, name := range []string{"run_shell", "revert_files", "write_file", "undo"} {
		if h := hints[name]; h == nil || h.ReadOnlyHint || h.DestructiveHint == nil || !*h.DestructiveHint {
			t.Errorf("%s is not marked destructive", name)
		}
	}
	if h := hints["write_file"]; h == nil || !h.IdempotentHint {
		t.Errorf("write_file is not marked idempotent")
	}

	_, _, p := mcpResult(t, cs, "record_prompt", map[string]any{"prompt": "make the build pass\nand keep the tests"})
	if p["title"] != "make the build pass" || p["item"] == nil {
		t.Fatalf("record_prompt: %v", p)
	}
	if l := e.sessions(t); len(l) != 1 || l[0].Title != "make the build pass" {
		t.Fatalf("sessions %+v", l)
	}

	// A failing command: its exit code in the text, an error result.
	res, text, a := mcpResult(t, cs, "run_shell", map[string]any{"command": "echo out; echo err >&2; exit 3"})
	if !res.IsError || !strings.Contains(text, "out\n") || !strings.HasSuffix(text, "[exit code 3]") || a["exit_code"] != 3.0 || a["item"] == nil {
		t.Fatalf("failing run_shell: isError %v text %q answer %v", res.IsError, text, a)
	}
	// A silent success says there was no output.
	res, text, a = mcpResult(t, cs, "run_shell", map[string]any{"command": "true"})
	if res.IsError || text != "(no output)\n[exit code 0]" || a["exit_code"] != 0.0 {
		t.Fatalf("silent run_shell: isError %v text %q answer %v", res.IsError, text, a)
	}

	os.WriteFile(filepath.Join(e.dir, "a.txt"), []byte("x x x\n"), 0o644)
	_, _, w := mcpResult(t, cs, "write_file", map[string]any{"path": "b.txt", "content": "bee\n"})
	written, _ := w["item"].(string)
	if !strings.HasPrefix(written, "i-") {
		t.Fatalf("write_file answer without its item: %v", w)
	}
	// Three occurrences: refused without replace_all (an error result that
	// names its item too), all replaced with it.
	res, _, r := mcpResult(t, cs, "edit_file", map[string]any{"path": "a.txt", "old_string": "x", "new_string": "y"})
	if !res.IsError || r["item"] == nil || r["error"] == nil {
		t.Fatalf("edit of 3 occurrences: isError %v, %v", res.IsError, r)
	}
	if _, _, r = mcpResult(t, cs, "edit_file", map[string]any{"path": "a.txt", "old_string": "x", "new_string": "y", "replace_all": true}); r["item"] == nil {
		t.Fatalf("replace_all: %v", r)
	}
	if b, _ := os.ReadFile(filepath.Join(e.dir, "a.txt")); string(b) != "y y y\n" {
		t.Fatalf("a.txt after replace_all: %q", b)
	}

	// list_items shows the items; the write's item is one of them, a
	// tool_call, and revert_files takes it.
	_, _, l := mcpResult(t, cs, "list_items", nil)
	found := false
	for _, x := range l["items"].([]any) {
		it := x.(map[string]any)
		if it["id"] == written {
			found = it["type"] == "tool_call" && it["tool"] == "write_file" && it["n"] != nil
		}
	}
	if !found {
		t.Fatalf("list_items does not show the write's call %s: %v", written, l)
	}
	if _, _, rv := mcpResult(t, cs, "revert_files", map[string]any{"item": written, "apply": true}); rv["files"] == nil {
		t.Fatalf("revert_files to the write's item: %v", rv)
	}
	if b, _ := os.ReadFile(filepath.Join(e.dir, "a.txt")); string(b) != "x x x\n" {
		t.Fatalf("a.txt after the revert: %q (the edit after the write is taken back)", b)
	}
}

// rpcLines are the JSON-RPC lines of out.
func rpcLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var got []map[string]any
	for l := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not a JSON line: %q", l)
		}
		got = append(got, m)
	}
	return got
}

// mcpRaw runs cairn mcp over in and returns its answers by id, and the
// number of parse errors (id null) among them.
func mcpRaw(t *testing.T, in string) (map[any]map[string]any, int, string) {
	t.Helper()
	e := newProcEnv(t)
	code, out, errs := e.runIn(t, in, "mcp")
	if code != 0 {
		t.Fatalf("cairn mcp: exit %d, stderr %q", code, errs)
	}
	ids := map[any]map[string]any{}
	parse := 0
	for _, m := range rpcLines(t, out) {
		if m["id"] == nil {
			if errm, ok := m["error"].(map[string]any); ok && errm["code"] == -32700.0 {
				parse++
			}
			if _, has := m["id"]; !has {
				t.Errorf("a parse error without \"id\": null: %v", m)
			}
			continue
		}
		ids[m["id"]] = m
	}
	return ids, parse, out
}

// A line that is not JSON gets JSON-RPC's parse error, and the server
// goes on answering.
func TestMCPParseError(t *testing.T) {
	ids, parse, out := mcpRaw(t, mcpHello+"hello, this is not JSON\n"+`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`+"\n")
	if parse != 1 || ids[1.0] == nil || ids[2.0] == nil {
		t.Fatalf("%d parse errors (want 1), answers %v: %s", parse, ids, out)
	}
}

// A request the client cancels gets no answer; the others do.
func TestMCPCancelledGetsNoAnswer(t *testing.T) {
	ids, _, out := mcpRaw(t, mcpHello+
		mcpToolCall(3, "run_shell", map[string]any{"command": "sleep 30"})+
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"the user pressed Esc"}}`+"\n"+
		`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`+"\n")
	if ids[1.0] == nil || ids[4.0] == nil {
		t.Errorf("answers %v: %s", ids, out)
	}
	if ids[3.0] != nil {
		t.Errorf("the cancelled request was answered: %v", ids[3.0])
	}
}
