package hookcmd

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"cairn/engine"
)

// Shell commands under hooks: Claude Code's Bash tool, and Codex's shell
// tools, which Codex's hooks name Bash too (tool_input {"command": LINE}
// in both). The pre-tool hook walks what the line may change by the
// scope rules of `cairn tool exec` and leaves a marker
// (engine.Session.BeginExec); the post-tool hook writes the record
// (SettleChange). The record is labelled "bash". A line that only reads
// records nothing and opens no session.

// hookShellLine is the command line of a shell tool's event.
func hookShellLine(ev hookEvent) (string, bool) {
	if ev.ToolName != "Bash" {
		return "", false
	}
	var in struct {
		Command string `json:"command"`
	}
	if len(ev.ToolInput) > 0 {
		json.Unmarshal(ev.ToolInput, &in)
	}
	return in.Command, true
}

// hookBashPre is the pre-tool hook of a shell command.
func (h *hookRun) hookBashPre(ev hookEvent, ws *engine.Workspace, a engine.AgentSession, opts engine.SessionOptions, line string) error {
	if line == "" {
		return nil
	}
	if ev.ToolUseID == "" {
		return fmt.Errorf("Bash: the event has no tool_use_id; not recorded")
	}
	if !ws.LineChanges(line, hookDir(ev)) {
		return nil // only reads: no record, no session opened
	}
	p, err := ws.BeginAgentExec(h.Ctx, a, opts, hookLockWait, "bash", ev.ToolUseID, line, hookDir(ev))
	if err != nil {
		return err
	}
	if p.Unrecorded != "" {
		h.say(fmt.Sprintf("this command runs without a change record (%s): revert cannot put back what it changes", p.Unrecorded))
	}
	return nil
}

// hookDir is the folder the agent's command runs in: the event's cwd
// when it names an absolute one ("" otherwise: the workspace).
func hookDir(ev hookEvent) string {
	if filepath.IsAbs(ev.Cwd) {
		return filepath.Clean(ev.Cwd)
	}
	return ""
}
