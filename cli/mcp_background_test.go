package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPShellTimeoutAndTaskControl: cairn mcp is one-shot, so run_shell
// waits whatever its timeoutSec, killed at that deadline (an error result
// saying so); task_control answers list (with the shape of the plumbing's
// --json) and refuses a call without task_id.
func TestMCPShellTimeoutAndTaskControl(t *testing.T) {
	cs, e := mcpClient(t)
	mcpResult(t, cs, "record_prompt", map[string]any{"prompt": "slow things"})
	res, text, out := mcpResult(t, cs, "run_shell", map[string]any{"command": "sleep 30; touch late.txt", "timeoutSec": 1})
	if !res.IsError || !strings.Contains(text, "killed at its timeout of 1 seconds") || out["item"] == nil {
		t.Fatalf("timed out: %v %q %v", res.IsError, text, out)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "late.txt")); !os.IsNotExist(err) {
		t.Fatalf("the line ran past its deadline: %v", err)
	}
	// Over the threshold, one-shot still waits: the answer is the exit.
	res, text, out = mcpResult(t, cs, "run_shell", map[string]any{"command": "echo long", "timeoutSec": 121})
	if res.IsError || !strings.Contains(text, "long") || out["exit_code"] != float64(0) || out["receipt"] != nil {
		t.Fatalf("121 one-shot: %v %q %v", res.IsError, text, out)
	}
	res, _, out = mcpResult(t, cs, "task_control", map[string]any{"action": "list"})
	if res.IsError {
		t.Fatalf("list: %+v", res)
	}
	if tasks, ok := out["tasks"].([]any); !ok || len(tasks) != 0 || out["next"] != nil {
		t.Fatalf("list: %v", out)
	}
	res, text, _ = mcpResult(t, cs, "task_control", map[string]any{"action": "cancel"})
	if !res.IsError || !strings.Contains(text, "task_id") {
		t.Fatalf("cancel without task_id: %v %q", res.IsError, text)
	}
}
