package hookcmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"cairn/cli/cmdbase"
	"cairn/engine"
	"cairn/importer"
)

// `cairn hook claude-code` and `cairn hook codex`: the command an agent's
// hook entry runs, one event on stdin (the agent's hook JSON). The agent's
// session is one cairn session (engine.OpenAgent). What each event does:
//
//	UserPromptSubmit   the transcript brought in so far (prompt.go), then the
//	                   prompt, as a user item (keyed by prompt_id when sent)
//	PreToolUse         a file edit's pre-images and pending marker (BeginAgentChange);
//	                   a shell command's scope walked and stored, and its marker (BeginExec)
//	PostToolUse        the edit's change line, or nothing when no file changed;
//	                   the command's call and record lines (SettleChange)
//	Stop               the transcript brought in, then the end of the turn
//	SessionEnd         the transcript brought in
//	others             nothing
//
// File edits are Write, Edit, MultiEdit, NotebookEdit (Claude Code) and
// apply_patch (Codex, whose patch text names its paths); shell commands
// are Bash (both agents, bash.go), recorded by the scope rules of
// `cairn tool exec`. Other tools are not recorded.
//
// Never in the agent's way, never silent: a hook that could not record
// (or records less than asked) exits 0 with a JSON answer whose
// systemMessage tells the user what was not recorded and why, which both
// agents show; the same goes to stderr. Only a snapshots.required refusal
// of a PreToolUse blocks the tool, with exit 2 and the reason on stderr
// (both agents' block contract).

// HookClaudeCmd is `cairn hook claude-code`.
type HookClaudeCmd struct{}

// HookCodexCmd is `cairn hook codex`.
type HookCodexCmd struct{}

func (c *HookClaudeCmd) Run(g *cmdbase.Globals) error { return runHook(g, importer.AgentClaudeCode) }
func (c *HookCodexCmd) Run(g *cmdbase.Globals) error  { return runHook(g, importer.AgentCodex) }

// hookEvent is the part of a hook's stdin cairn reads.
type hookEvent struct {
	SessionID  string          `json:"session_id"`
	Transcript *string         `json:"transcript_path"`
	Cwd        string          `json:"cwd"`
	Event      string          `json:"hook_event_name"`
	ToolName   string          `json:"tool_name"`
	ToolInput  json.RawMessage `json:"tool_input"`
	ToolUseID  string          `json:"tool_use_id"`
	Prompt     string          `json:"prompt"`
	PromptID   string          `json:"prompt_id"` // Claude Code 2.1.196+
	Model      string          `json:"model"`
}

// hookToolInput is the fields of the file tools' tool_input cairn reads.
type hookToolInput struct {
	FilePath     string `json:"file_path"`
	NotebookPath string `json:"notebook_path"`
	Command      string `json:"command"` // apply_patch's patch text
}

// hookLockWait is how long a hook waits for a parallel hook of the same
// session to let it go.
const hookLockWait = 5 * time.Second

// hookFields are the members of a hook event cairn reads; the rest (a
// post-tool event's tool_response may hold a whole file) is read past.
var hookFields = map[string]bool{"session_id": true, "transcript_path": true, "cwd": true, "hook_event_name": true,
	"tool_name": true, "tool_input": true, "tool_use_id": true, "prompt": true, "prompt_id": true, "model": true}

// errBlock is a refusal the agent must see: it blocks the tool.
type errBlock struct{ reason string }

func (e *errBlock) Error() string { return e.reason }

// hookRun is one hook process: the notices it has for the user.
type hookRun struct {
	*cmdbase.Globals
	agent string
	notes []string
}

// say adds a notice for the user (the hook's systemMessage).
func (h *hookRun) say(msg string) { h.notes = append(h.notes, msg) }

func runHook(g *cmdbase.Globals, agent string) error {
	// One event, one short process, whose allocations (a prompt's hook
	// reads the whole session) are freed by its exit: collecting them
	// before is time the agent waits for (cmdbase.BurstGC).
	defer cmdbase.BurstGC()()
	h := &hookRun{Globals: g, agent: agent}
	// The hook program hands the run to the cairn command when it cannot
	// check the session's lease (handover.go).
	var ev hookEvent
	err := handOverUnchecked(g)
	if err == nil {
		ev, err = h.hook()
	}
	var b *errBlock
	switch {
	case err == nil:
	case errors.As(err, &b):
		// cmdbase.Main (Globals.Fail) writes the reason, one line on stderr.
		return &cmdbase.ExitError{Code: 2, Word: "refused", Err: err, Quiet: true}
	default:
		h.say(hookFailure(ev, err))
	}
	if len(h.notes) == 0 {
		return nil
	}
	// Exit 0 with a JSON answer: the agent shows its systemMessage to the
	// user and goes on (both agents' hook contract). stderr, which only the
	// agent's debug log sees, gets the same lines.
	for _, n := range h.notes {
		fmt.Fprintf(g.Stderr, "cairn hook %s: %s\n", agent, n)
	}
	out, _ := json.Marshal(map[string]string{"systemMessage": "cairn: " + strings.Join(h.notes, "; ")})
	fmt.Fprintf(g.Stdout, "%s\n", out)
	return nil
}

// hookFailure is what the user reads of a hook that could not record ev:
// what was not recorded, and why.
func hookFailure(ev hookEvent, err error) string {
	what := "this event was not recorded"
	switch ev.Event {
	case "UserPromptSubmit":
		what = "this prompt was not recorded"
	case "PreToolUse", "PostToolUse", "PostToolUseFailure":
		what = fmt.Sprintf("this %s call was not recorded (undo and revert cannot put its changes back)", orWord(ev.ToolName, "tool"))
	case "Stop", "SessionEnd":
		what = "the end of this turn was not recorded"
	}
	var busy *engine.BusyError
	if errors.As(err, &busy) && !busy.Brief {
		who := "another cairn process"
		if busy.PID > 0 {
			who = fmt.Sprintf("cairn (pid %d)", busy.PID)
		}
		return fmt.Sprintf("%s: this session is open in %s, so the hooks record nothing until it is closed there (/exit)", what, who)
	}
	return what + ": " + cmdbase.UserError(err)
}

func orWord(s, w string) string {
	if s == "" {
		return w
	}
	return s
}

// hook does what the event on stdin asks; the event is returned as far as
// it was read.
func (h *hookRun) hook() (hookEvent, error) {
	var ev hookEvent
	m, err := readHookEvent(h.Stdin, hookFields)
	if err != nil {
		return ev, fmt.Errorf("the event on stdin is not JSON: %v", err)
	}
	b, _ := json.Marshal(m)
	if err := json.Unmarshal(b, &ev); err != nil {
		return ev, fmt.Errorf("the event on stdin is not a hook event: %v", err)
	}
	return ev, h.event(ev)
}

// event does what ev asks.
func (h *hookRun) event(ev hookEvent) error {
	g, agent := h.Globals, h.agent
	ws, err := hookWorkspace(g, ev, hookProjectDir(agent))
	if err != nil {
		return err
	}
	a := engine.AgentSession{Agent: agent, ID: ev.SessionID}
	if ev.Transcript != nil {
		a.Transcript = *ev.Transcript
	}
	// Brief: one event per process, many a turn (engine.SessionOptions).
	opts := g.SessionOptions()
	opts.Brief = true
	switch ev.Event {
	case "UserPromptSubmit":
		// The session opened from the hooks' index, the transcript brought
		// in (prompt.go), then the prompt, keyed by the agent's prompt
		// id when it sends one, so `cairn import` of its transcript finds
		// this item (else by text and time).
		catchUp := func(s *engine.Session) { h.hookCatchUp(ws, s, ev, true) }
		if _, err := ws.RecordAgentPrompt(g.Ctx, a, opts, hookLockWait, ev.Prompt, ev.PromptID, catchUp); err != nil {
			return err
		}
		// A config.json cairn cannot read stops the recording of every
		// file change: said at the prompt, before the turn's first edit.
		if st, err := g.Open(); err == nil {
			if _, err := st.Config(); err != nil {
				h.say("the file changes of this turn will not be recorded (undo and revert cannot put them back): " + cmdbase.UserError(err))
			}
		}
		return nil
	case "Stop", "SessionEnd":
		// The session opened from the hooks' index, as for a prompt; the
		// turn's answers and calls brought in, as far as the transcript
		// holds them; then, at Stop, the end of the turn.
		catchUp := func(s *engine.Session) { h.hookCatchUp(ws, s, ev, false) }
		var t *engine.Turn
		if ev.Event == "Stop" {
			t = &engine.Turn{Model: ev.Model, Labels: []string{agent}}
		}
		return ws.EndAgentTurn(g.Ctx, a, opts, hookLockWait, t, catchUp)
	case "PreToolUse":
		if line, ok := hookShellLine(ev); ok {
			return h.hookBashPre(ev, ws, a, opts, line) // bash.go
		}
		tool, paths, err := hookPaths(ev, ws)
		if tool == "" || err != nil || len(paths) == 0 {
			return err
		}
		if ev.ToolUseID == "" {
			return fmt.Errorf("%s: the event has no tool_use_id; not recorded", ev.ToolName)
		}
		// The session opened for its change records only: a hook's cost
		// does not grow with the conversation (engine/hook_open.go).
		_, err = ws.BeginAgentChange(g.Ctx, a, opts, hookLockWait, tool, ev.ToolUseID, paths)
		var req *engine.RequiredError
		if errors.As(err, &req) {
			var fs []string
			for _, f := range req.Files {
				fs = append(fs, f.Path+" ("+f.Reason+")")
			}
			return &errBlock{reason: "this edit is refused: cairn must keep a copy of " + strings.Join(fs, ", ") +
				" before it changes (snapshots.required) and cannot; leave these files as they are, or ask the user to fix cairn's snapshot store"}
		}
		return err
	case "PostToolUse", "PostToolUseFailure":
		tool, _, _ := hookPaths(ev, ws)
		if _, ok := hookShellLine(ev); ok {
			tool = "bash"
		}
		if tool == "" || ev.ToolUseID == "" || !ws.HasPending(a, ev.ToolUseID) {
			return nil // nothing pending: the session is not opened
		}
		_, err := ws.SettleAgentChange(g.Ctx, a, opts, hookLockWait, ev.ToolUseID)
		return err
	}
	return nil // SessionStart and the rest: nothing to record
}

// hookWorkspace is the workspace of the agent's project folder when the
// agent names it (project), else of the event's cwd, else -C's or the
// working directory's. The project folder comes first: the cwd follows
// the agent's cd, and one agent session is one cairn session.
func hookWorkspace(g *cmdbase.Globals, ev hookEvent, project string) (*engine.Workspace, error) {
	if ev.SessionID == "" {
		return nil, errors.New("the event has no session_id")
	}
	dir := project
	if dir == "" {
		dir = ev.Cwd
	}
	if dir == "" {
		d, err := g.Dir()
		if err != nil {
			return nil, err
		}
		dir = d
	}
	st, err := g.Open()
	if err != nil {
		return nil, err
	}
	return st.Workspace(dir)
}

// hookPaths is the change's tool label and the absolute paths of the
// files inside the workspace a file tool's input names; "" for a tool
// cairn does not record. Files outside the workspace are left out.
func hookPaths(ev hookEvent, ws *engine.Workspace) (string, []string, error) {
	var in hookToolInput
	if len(ev.ToolInput) > 0 {
		json.Unmarshal(ev.ToolInput, &in)
	}
	var tool string
	var names []string
	switch ev.ToolName {
	case "Write", "Edit", "MultiEdit":
		tool, names = strings.ToLower(ev.ToolName), []string{in.FilePath}
	case "NotebookEdit":
		tool, names = "notebook_edit", []string{in.NotebookPath}
	case "apply_patch":
		tool = "apply_patch"
		ps, err := engine.PatchPaths([]byte(in.Command))
		if err != nil {
			return tool, nil, fmt.Errorf("apply_patch: %v; not recorded", err)
		}
		names = ps
	default:
		return "", nil, nil
	}
	base := ev.Cwd
	if base == "" {
		base = ws.Path()
	}
	var out []string
	for _, n := range names {
		if n == "" {
			continue
		}
		if !filepath.IsAbs(n) {
			n = filepath.Join(base, n)
		}
		// The tool writes through a link (one agent's notes file linked to
		// another's): the file it changes, and undo must put back, is the
		// link's target.
		n = linkTarget(filepath.Clean(n))
		if rel, err := filepath.Rel(ws.Path(), n); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		out = append(out, n)
	}
	return tool, out, nil
}

// linkTarget is the file p names once its last element's symbolic links
// are followed (a link to a file not there yet names that file); p itself
// when it is no link. The folders on the way are the workspace's to
// resolve (engine paths go through its os.Root).
func linkTarget(p string) string {
	for range 40 {
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return p
		}
		t, err := os.Readlink(p)
		if err != nil {
			return p
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(p), t)
		}
		p = filepath.Clean(t)
	}
	return p
}
