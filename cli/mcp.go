package cli

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"reflect"
	"strings"
	"sync"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cairn/engine"
)

// MCPCmd is `cairn mcp`: an MCP server on stdin and stdout for agents that
// run no hooks. Its tools are cairn's file tools, shell lines, undo, redo
// and snapshots, each answering with the JSON the plumbing command prints
// (as the result's structured content, and as its text). The server owns
// one session for as long as it runs: a new one, or --session's.
type MCPCmd struct {
	Session     string `name:"session" placeholder:"S" help:"Session the tool calls belong to (default: a new one)."`
	NoSnapshots bool   `name:"no-snapshots" help:"Record no file changes for this process."`
}

// The tools' inputs. The descriptions are what the model reads.
type (
	mcpWriteIn struct {
		Path    string `json:"path" jsonschema:"file to write: workspace-relative, or absolute inside the workspace"`
		Content string `json:"content" jsonschema:"the file's whole new content"`
	}
	mcpEditIn struct {
		Path       string `json:"path" jsonschema:"file to edit"`
		OldString  string `json:"old_string" jsonschema:"text to replace: it must occur exactly once, unless replace_all"`
		NewString  string `json:"new_string" jsonschema:"replacement text"`
		ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"replace every occurrence of old_string (at least one)"`
	}
	mcpPatchIn struct {
		Patch string `json:"patch" jsonschema:"a git diff, or a '*** Begin Patch' envelope; every file it names changes, or none"`
	}
	mcpShellIn struct {
		Command    string `json:"command" jsonschema:"a shell line, run with sh -c in the workspace; what it changes is recorded for file revert"`
		TimeoutSec int    `json:"timeoutSec,omitempty" jsonschema:"the line's hard deadline in seconds (default 120): it is killed then; set it to what the command needs"`
	}
	mcpTaskControlIn struct {
		Action string `json:"action" jsonschema:"list, status, cancel, background or pause"`
		TaskID string `json:"task_id,omitempty" jsonschema:"the task or shell job (every action but list)"`
		Cursor string `json:"cursor,omitempty" jsonschema:"list: the next of the page before, passed back as given"`
		Limit  int    `json:"limit,omitempty" jsonschema:"list: entries a page (default 20)"`
	}
	mcpNoIn     struct{}
	mcpPromptIn struct {
		Prompt string `json:"prompt" jsonschema:"the user's request, as they wrote it"`
	}
	mcpItemsIn struct {
		All bool `json:"all,omitempty" jsonschema:"every item of every branch, not only the conversation's path"`
	}
)

// mcpInstructions is what the server tells the model about its tools.
const mcpInstructions = `cairn keeps what these tools change so it can be put back. ` +
	`At the start of each request of the user, call record_prompt with it: the session is titled by the first, ` +
	`and revert_files to that prompt takes back everything done for it. ` +
	`Every tool that changes files answers with "item", the id of its call in the conversation: ` +
	`revert_files takes such an id (or N, the Nth item that list_items shows). ` +
	`run_shell says its exit code; a failing command is an error result.`

func (c *MCPCmd) Run(g *Globals) error {
	// config.json is read before the server starts: a value outside what
	// it allows (an execution mode) is refused at once, exit 2, rather
	// than as each tool call's error.
	st, err := g.Open()
	if err != nil {
		return err
	}
	if _, err := st.Config(); err != nil {
		return err
	}
	opts := g.SessionOptions()
	opts.NoSnapshots = c.NoSnapshots
	var s *engine.Session
	if c.Session != "" {
		ws, id, err := g.resolveSession(c.Session)
		if err != nil {
			return err
		}
		if s, err = ws.Open(g.Ctx, id, opts); err != nil {
			return err
		}
	} else {
		ws, err := g.workspace()
		if err != nil {
			return err
		}
		s = ws.Create(opts)
	}
	defer s.Close()
	// A signal stops the reading and cancels the calls under way; the
	// server itself ends when its connection does (cli/mcp_conn.go).
	// (SIGINT cancels g.ctx, Process.)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	stop, stopNow := context.WithCancel(g.Ctx)
	defer stopNow()
	var mu sync.Mutex
	var got os.Signal
	go func() {
		select {
		case sig := <-sigs:
			mu.Lock()
			got = sig
			mu.Unlock()
			stopNow()
		case <-stop.Done():
		}
	}()
	srv := newMCPServer(s, stop)
	err = srv.Run(context.WithoutCancel(g.Ctx), &mcpStdio{in: g.Stdin, out: g.Stdout, stop: stop})
	stopNow()
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		err = nil
	}
	mu.Lock()
	defer mu.Unlock()
	if n, ok := got.(syscall.Signal); ok && err == nil {
		return &exitError{Code: 128 + int(n), Word: "signal", Quiet: true,
			Err: fmt.Errorf("stopped by %s: the calls under way were cancelled and what they changed is recorded", signalName(got))}
	}
	return err
}

// signalName is "SIGTERM" or "SIGHUP", as a person names them.
func signalName(sig os.Signal) string {
	switch sig {
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return sig.String()
}

// mcpAnswer is a tool's answer: its JSON, or its error as the tool's error
// (a refusal the model can read, never a protocol failure).
func mcpAnswer[T any](v T, err error) (*mcp.CallToolResult, any, error) {
	if err != nil {
		return nil, nil, errors.New(userError(refusedLine(err)))
	}
	return nil, v, nil
}

// withItem is answer a (its JSON object) with "item": the id of the item
// the call made, as `cairn append --json` answers, so a model can hand it
// to revert_files.
func withItem(a any, item string) map[string]any {
	out := map[string]any{}
	if a != nil && !isNil(a) {
		b, _ := json.Marshal(a)
		json.Unmarshal(b, &out)
	}
	out["item"] = item
	return out
}

// mcpCall runs a tool that changes files as the conversation's own call:
// a tool_call item (its input) first, which the change record names, then
// the run, then a tool_result item (its answer), so file revert has items
// to revert to and the session's transcript shows what the agent did. The
// answer carries the tool_call item's id, "item", the refusal of one that
// failed too (as a tool error, with the item).
//
// A call cancelled before it starts (cairn mcp is stopping) adds nothing;
// one cancelled under way still gets its tool_result, with what it did, so
// its record is whole.
func mcpCall[In any](ctx context.Context, s *engine.Session, tool string, in In, run func(call string) (any, error)) (*mcp.CallToolResult, any, error) {
	res, a, _, err := mcpCallItem(ctx, s, tool, in, run)
	return res, a, err
}

// mcpCallItem is mcpCall; it also says the item it made ("" for none).
func mcpCallItem[In any](ctx context.Context, s *engine.Session, tool string, in In, run func(call string) (any, error)) (*mcp.CallToolResult, any, string, error) {
	if ctx.Err() != nil {
		res, a, err := mcpAnswer[any](nil, errNotStarted)
		return res, a, "", err
	}
	args, _ := json.Marshal(in)
	it, err := s.Append(ctx, engine.Item{Type: engine.ToolCall, Tool: tool, Text: string(args)})
	if err != nil {
		res, a, err := mcpAnswer[any](nil, err)
		return res, a, "", err
	}
	a, err := run(it.ID)
	if err != nil && errors.Is(err, context.Canceled) {
		err = errCancelled
	}
	text := ""
	if a != nil && !isNil(a) {
		b, _ := json.Marshal(a)
		text = string(b)
	}
	if err != nil {
		text = strings.TrimSuffix("error: "+userError(refusedLine(err))+"\n"+text, "\n")
	}
	// A shell line's result names its stored output, so a fork of the
	// session can still read it.
	var outs []string
	if ea, ok := a.(*engine.ExecAnswer); ok && ea != nil && ea.Output != "" {
		outs = []string{ea.Output}
	}
	// The result and the commit are the call's record: they are written
	// even when the call was cancelled.
	done := context.WithoutCancel(ctx)
	if _, rerr := s.Append(done, engine.Item{Type: engine.ToolResult, Call: it.ID, Text: text, Outputs: outs}); rerr != nil && err == nil {
		err = rerr
	}
	if cerr := s.Commit(done); cerr != nil && err == nil {
		err = cerr
	}
	out := withItem(a, it.ID)
	if err != nil {
		msg := userError(refusedLine(err))
		out["error"] = msg
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg + " (item " + it.ID + ")"}}}, out, it.ID, nil
	}
	return nil, out, it.ID, nil
}

// The answers of a call cancelled (cairn mcp told to stop, or the client's
// notifications/cancelled) before it started, and while it ran.
var (
	errNotStarted = errors.New("cancelled before it started: nothing was changed")
	errCancelled  = errors.New("cancelled: what the call changed until then is recorded")
)

// isNil reports whether v holds a nil pointer (an answer not made).
func isNil(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

// cancelOnStop has every request's context cancelled when stop is done,
// and already cancelled when the request comes after it: a call that
// starts once cairn mcp is stopping changes nothing (mcpCall). AfterFunc
// alone would cancel it from a goroutine of its own, perhaps after the
// call had started.
func cancelOnStop(stop context.Context) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			defer context.AfterFunc(stop, cancel)()
			if stop.Err() != nil {
				cancel()
			}
			return next(ctx, method, req)
		}
	}
}

// mcpHints are a tool's annotations: read-only, or what a change does.
func mcpHints(title string, readOnly, destructive, idempotent, openWorld bool) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: readOnly, DestructiveHint: &destructive, IdempotentHint: idempotent, OpenWorldHint: &openWorld}
}

// newMCPServer is the server of session s with every tool. When stop is
// done, every call under way is cancelled.
func newMCPServer(s *engine.Session, stop context.Context) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "cairn", Version: engine.Version}, &mcp.ServerOptions{Instructions: mcpInstructions})
	srv.AddReceivingMiddleware(cancelOnStop(stop))
	mcp.AddTool(srv, &mcp.Tool{Name: "record_prompt", Description: "Record the user's request that starts a turn, as a user item of the conversation: the session is titled by the first, and revert_files to it takes back everything done for it. Answers with its item id.",
		Annotations: mcpHints("Record the user's request", false, false, false, false)},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpPromptIn) (*mcp.CallToolResult, any, error) {
			if strings.TrimSpace(in.Prompt) == "" {
				return mcpAnswer[any](nil, usageErrorf("the prompt is empty"))
			}
			it, err := s.Append(ctx, engine.Item{Type: engine.User, Text: in.Prompt})
			if err == nil {
				err = s.Commit(ctx)
			}
			if err != nil {
				return mcpAnswer[any](nil, err)
			}
			return nil, map[string]any{"session": s.ID(), "item": it.ID, "title": s.Record().Title}, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "write_file", Description: "Write a file of the workspace with the given content; its old content is kept first, so undo can put it back. Answers with the call's item id.",
		Annotations: mcpHints("Write a file", false, true, true, false)},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpWriteIn) (*mcp.CallToolResult, any, error) {
			return mcpCall(ctx, s, "write_file", in, func(call string) (any, error) {
				return s.ToolWrite(ctx, in.Path, []byte(in.Content), engine.ToolOptions{Call: call})
			})
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "edit_file", Description: "Replace the one occurrence of old_string in a file by new_string (every occurrence with replace_all); undoable. Answers with the call's item id.",
		Annotations: mcpHints("Edit a file", false, true, false, false)},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpEditIn) (*mcp.CallToolResult, any, error) {
			return mcpCall(ctx, s, "edit_file", in, func(call string) (any, error) {
				return s.ToolEdit(ctx, in.Path, in.OldString, in.NewString, engine.ToolOptions{Call: call, ReplaceAll: in.ReplaceAll})
			})
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "apply_patch", Description: "Apply a patch to several files at once, as one undoable change; a patch that does not apply changes nothing. Answers with the call's item id.",
		Annotations: mcpHints("Apply a patch", false, true, false, false)},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpPatchIn) (*mcp.CallToolResult, any, error) {
			return mcpCall(ctx, s, "apply_patch", in, func(call string) (any, error) {
				return s.ToolPatch(ctx, []byte(in.Patch), engine.ToolOptions{Call: call})
			})
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "run_shell", Description: "Run a shell line in the workspace; the files it changes are recorded, so revert_files can take them back. Answers with its output and exit code (a command that fails is an error result), and the call's item id.",
		Annotations: mcpHints("Run a shell line", false, true, false, true)},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpShellIn) (*mcp.CallToolResult, any, error) {
			var buf bytes.Buffer
			res, a, item, err := mcpCallItem(ctx, s, "run_shell", in, func(call string) (any, error) {
				// cairn mcp is one-shot: shell auto waits, and the
				// timeout is the hard deadline.
				sa, err := s.Shell(ctx, in.Command, engine.ShellOptions{ExecOptions: engine.ExecOptions{Call: call, Stdout: &buf, Stderr: &buf},
					TimeoutSecs: in.TimeoutSec, Use: engine.ExecOneShot})
				if sa.Exec == nil {
					return nil, err
				}
				if sa.TimedOut && err == nil {
					err = fmt.Errorf("killed at its timeout of %d seconds", cmp.Or(in.TimeoutSec, engine.DefaultShellTimeoutSecs))
				}
				return sa.Exec, err
			})
			if err != nil || item == "" || (res != nil && res.IsError) {
				return res, a, err
			}
			code := 0
			if m, ok := a.(map[string]any); ok {
				if c, ok := m["exit_code"].(float64); ok {
					code = int(c)
				}
			}
			// The output first, for the model, with the exit code; the
			// answer as structured content.
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: shellText(buf.String(), code)}}, IsError: code != 0}, a, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "task_control", Description: "Inspect and control this session's background work: list (newest first, 20 a page; pass next back as cursor for older), status, cancel (shows cancelling until it settles), background (promote a running agent task; task auto only), pause (a running workflow run; its runtime resumes it under the same id). Every action but list needs task_id.",
		Annotations: mcpHints("Inspect and control background work", false, true, false, false)},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpTaskControlIn) (*mcp.CallToolResult, any, error) {
			return mcpAnswer(s.TaskControl(ctx, engine.TaskControlRequest{Action: in.Action, TaskID: in.TaskID, Cursor: in.Cursor, Limit: in.Limit}))
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "undo", Description: "Put back the files of the newest file-tool change (write_file, edit_file, apply_patch).",
		Annotations: mcpHints("Undo the newest change", false, true, false, false)},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ mcpNoIn) (*mcp.CallToolResult, any, error) {
			return mcpAnswer(s.Undo(ctx))
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "redo", Description: "Put the newest undone change back.",
		Annotations: mcpHints("Redo the newest undone change", false, true, false, false)},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ mcpNoIn) (*mcp.CallToolResult, any, error) {
			return mcpAnswer(s.Redo(ctx))
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "list_snapshots", Description: "List this session's undoable changes, newest last, with the files each changed.",
		Annotations: mcpHints("List the undoable changes", true, false, true, false)},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ mcpNoIn) (*mcp.CallToolResult, any, error) {
			return mcpAnswer(s.Snapshots(ctx))
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "list_items", Description: "List the conversation's items in order (N, id, type, tool, the start of the text): the ids and numbers revert_files takes.",
		Annotations: mcpHints("List the conversation's items", true, false, true, false)},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpItemsIn) (*mcp.CallToolResult, any, error) {
			items := s.Transcript()
			if in.All {
				items = s.AllItems()
			}
			type row struct {
				N    int    `json:"n,omitempty"`
				ID   string `json:"id"`
				Type string `json:"type"`
				Tool string `json:"tool,omitempty"`
				Call string `json:"call,omitempty"`
				Text string `json:"text"`
			}
			out := []row{}
			for i, it := range items {
				r := row{ID: it.ID, Type: string(it.Type), Tool: it.Tool, Call: it.Call, Text: cutText(it.Text, 200)}
				if !in.All {
					r.N = i + 1
				}
				out = append(out, r)
			}
			return nil, map[string]any{"session": s.ID(), "items": out}, nil
		})
	addRevertTool(srv, s)
	return srv
}

// shellText is what the model reads of a shell line: its output (or that
// there was none) and its exit code.
func shellText(out string, code int) string {
	if len(out) > engine.ShellKeepBytes {
		out = "[…]" + out[len(out)-engine.ShellKeepBytes:]
	}
	if out == "" {
		out = "(no output)\n"
	} else if !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	return fmt.Sprintf("%s[exit code %d]", out, code)
}

// cutText is s cut to at most n runes, with an ellipsis when it was cut.
func cutText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

type mcpRevertIn struct {
	Item  string `json:"item" jsonschema:"the item to revert to: an item id (as a tool's answer or list_items gives it), or N for the Nth item of the conversation; a user prompt reverts its own turn's changes too"`
	Both  bool   `json:"both,omitempty" jsonschema:"also move the conversation back (default: files only)"`
	Apply bool   `json:"apply,omitempty" jsonschema:"run the revert; without it, only preview what it would do"`
}

// addRevertTool adds revert_files: a preview, then (apply) the revert.
func addRevertTool(srv *mcp.Server, s *engine.Session) {
	mcp.AddTool(srv, &mcp.Tool{Name: "revert_files", Description: "Revert the files this session's tool calls and shell lines changed after an item, newest first; files no record names (the user's own edits) stay. Call without apply to preview; a conflict refuses the whole revert and lists why.",
		Annotations: mcpHints("Revert files to an item", false, true, false, false)},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpRevertIn) (*mcp.CallToolResult, any, error) {
			mode := engine.RevertFiles
			if in.Both {
				mode = engine.RevertBoth
			}
			at, err := itemArg(s.Transcript(), in.Item)
			if err != nil {
				return mcpAnswer[any](nil, err)
			}
			if !in.Apply {
				return mcpAnswer(s.PreviewRevert(ctx, at, mode))
			}
			return mcpAnswer(s.Revert(ctx, at, mode))
		})
}
