package cli

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// mcpHello is what an MCP client writes first: initialize, then the
// initialized notification.
const mcpHello = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
`

// mcpToolCall is a tools/call request line.
func mcpToolCall(id int, tool string, args map[string]any) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	return string(b) + "\n"
}

// mcpAnswers are the answers on out, by request id.
func mcpAnswers(t *testing.T, out string) map[int]map[string]any {
	t.Helper()
	got := map[int]map[string]any{}
	for l := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
		var m struct {
			ID     int            `json:"id"`
			Result map[string]any `json:"result"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not a JSON-RPC line: %q", l)
		}
		got[m.ID] = m.Result
	}
	return got
}

// A client that writes its requests and closes its end gets every answer:
// cairn mcp finishes the calls it has read, answers them, then exits 0.
// The calls' files and items are all there.
func TestMCPAnswersCallsAfterEndOfInput(t *testing.T) {
	e := newProcEnv(t)
	in := mcpHello +
		mcpToolCall(2, "run_shell", map[string]any{"command": "echo shell > s.txt"}) +
		mcpToolCall(3, "write_file", map[string]any{"path": "w.txt", "content": "written\n"})
	code, out, errs := e.runIn(t, in, "mcp")
	if code != 0 {
		t.Fatalf("cairn mcp: exit %d, stderr %q", code, errs)
	}
	got := mcpAnswers(t, out)
	for _, id := range []int{1, 2, 3} {
		if got[id] == nil || got[id]["isError"] == true {
			t.Errorf("request %d: answer %v; stdout %q", id, got[id], out)
		}
	}
	for name, want := range map[string]string{"s.txt": "shell\n", "w.txt": "written\n"} {
		if b, err := os.ReadFile(filepath.Join(e.dir, name)); err != nil || string(b) != want {
			t.Errorf("%s: %q %v", name, b, err)
		}
	}
	l := e.sessions(t)
	if len(l) != 1 || l[0].Items != 4 {
		t.Fatalf("sessions: %+v, want one with 2 calls and their 2 results", l)
	}
}

// A client that reuses the id of a call under way (a protocol error the
// SDK answers by dropping the second call) and closes its end still gets
// the first call's answer, and cairn mcp exits 0: it does not wait at the
// end of input for an answer that will never be written.
func TestMCPEndsAfterADuplicateCallID(t *testing.T) {
	e := newProcEnv(t)
	in := mcpHello +
		mcpToolCall(2, "run_shell", map[string]any{"command": "sleep 1; echo first > a.txt"}) +
		mcpToolCall(2, "run_shell", map[string]any{"command": "echo second > b.txt"})
	code, out, errs := e.runIn(t, in, "mcp")
	if code != 0 {
		t.Fatalf("cairn mcp: exit %d, stderr %q", code, errs)
	}
	if got := mcpAnswers(t, out); got[2] == nil || got[2]["isError"] == true {
		t.Errorf("the first call's answer: %q", out)
	}
	if b, err := os.ReadFile(filepath.Join(e.dir, "a.txt")); err != nil || string(b) != "first\n" {
		t.Errorf("a.txt: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "b.txt")); !os.IsNotExist(err) {
		t.Errorf("the call with a duplicate id ran: %v", err)
	}
}

// cairn mcp told to stop (SIGTERM) while a shell line runs cancels it and
// exits 143, the call recorded whole: what the line changed before it was
// stopped is in a change record revert reads, the call has its result,
// the session is closed (free, fsck clean), and the line did no more.
func TestMCPSigtermMidCallRecordsIt(t *testing.T) {
	e := newProcEnv(t)
	cmd := e.command("mcp")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	lines := startLines(t, cmd)
	io.WriteString(stdin, mcpHello+mcpToolCall(2, "run_shell", map[string]any{"command": "echo started > s1.txt; sleep 60; echo late > s2.txt"}))
	waitLine(t, lines, `"id":1`)
	waitFile(t, filepath.Join(e.dir, "s1.txt"), "started\n") // the shell line started
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var rest []string
	for l := range lines {
		rest = append(rest, l)
	}
	err = waitProcess(t, cmd)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 128+int(syscall.SIGTERM) {
		t.Fatalf("exit %v, want %d", err, 128+int(syscall.SIGTERM))
	}
	if got := mcpAnswers(t, strings.Join(rest, "\n")); got[2] == nil || got[2]["isError"] != true {
		t.Errorf("the cancelled call's answer: %q", rest)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "s2.txt")); !os.IsNotExist(err) {
		t.Errorf("the line went on after it was cancelled: %v", err)
	}

	l := e.sessions(t)
	if len(l) != 1 || l[0].OwnerPID != nil {
		t.Fatalf("sessions: %+v, want one, free", l)
	}
	id := l[0].ID
	var snaps struct {
		Records []struct {
			Tool  string
			Files []struct{ Path string }
		}
	}
	if err := json.Unmarshal([]byte(e.mustRun(t, "snapshots", "--json", "--session", id)), &snaps); err != nil {
		t.Fatal(err)
	}
	if len(snaps.Records) != 1 || len(snaps.Records[0].Files) != 1 || !strings.HasSuffix(snaps.Records[0].Files[0].Path, "s1.txt") {
		t.Fatalf("change records %+v, want the shell line's, naming s1.txt", snaps.Records)
	}
	var items []struct{ Type, Call, Text string }
	if err := json.Unmarshal([]byte(e.mustRun(t, "transcript", "--json", id)), &items); err != nil {
		t.Fatal(err)
	}
	if len(items) != 2 || items[0].Type != "tool_call" || items[1].Type != "tool_result" || !strings.Contains(items[1].Text, "cancelled") {
		t.Fatalf("transcript %+v, want the call and its result", items)
	}
	if out := e.mustRun(t, "storage", "fsck", "--json"); !strings.Contains(out, `"problems":[]`) {
		t.Fatalf("fsck: %s", out)
	}
}
