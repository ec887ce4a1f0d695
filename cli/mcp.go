package cli

import (
	"bytes"
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
		Path      string `json:"path" jsonschema:"file to edit"`
		OldString string `json:"old_string" jsonschema:"text to replace: it must occur exactly once"`
		NewString string `json:"new_string" jsonschema:"replacement text"`
	}
	mcpPatchIn struct {
		Patch string `json:"patch" jsonschema:"a git diff, or a '*** Begin Patch' envelope; every file it names changes, or none"`
	}
	mcpShellIn struct {
		Command string `json:"command" jsonschema:"a shell line, run with sh -c in the workspace; what it changes is recorded for file revert"`
	}
	mcpNoIn struct{}
)

func (c *MCPCmd) Run(g *Globals) error {
	opts := g.sessionOptions()
	opts.NoSnapshots = c.NoSnapshots
	var s *engine.Session
	if c.Session != "" {
		ws, id, err := g.resolveSession(c.Session)
		if err != nil {
			return err
		}
		if s, err = ws.Open(g.ctx, id, opts); err != nil {
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
	stop, stopNow := context.WithCancel(g.ctx)
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
	err := srv.Run(context.WithoutCancel(g.ctx), &mcpStdio{in: g.stdin, out: g.stdout, stop: stop})
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
		return &exitError{code: 128 + int(n), word: "signal", quiet: true,
			err: fmt.Errorf("stopped by %s: the calls under way were cancelled and what they changed is recorded", signalName(got))}
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

// mcpCall runs a tool that changes files as the conversation's own call:
// a tool_call item (its input) first, which the change record names, then
// the run, then a tool_result item (its answer), so file revert has items
// to revert to and the session's transcript shows what the agent did.
//
// A call cancelled before it starts (cairn mcp is stopping) adds nothing;
// one cancelled under way still gets its tool_result, with what it did, so
// its record is whole.
func mcpCall[In any](ctx context.Context, s *engine.Session, tool string, in In, run func(call string) (any, error)) (*mcp.CallToolResult, any, error) {
	if ctx.Err() != nil {
		return mcpAnswer[any](nil, errNotStarted)
	}
	args, _ := json.Marshal(in)
	it, err := s.Append(ctx, engine.Item{Type: engine.ToolCall, Tool: tool, Text: string(args)})
	if err != nil {
		return mcpAnswer[any](nil, err)
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
	return mcpAnswer(a, err)
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

// newMCPServer is the server of session s with every tool. When stop is
// done, every call under way is cancelled.
func newMCPServer(s *engine.Session, stop context.Context) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "cairn", Version: engine.Version}, nil)
	srv.AddReceivingMiddleware(cancelOnStop(stop))
	mcp.AddTool(srv, &mcp.Tool{Name: "write_file", Description: "Write a file of the workspace with the given content; its old content is kept first, so undo can put it back."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpWriteIn) (*mcp.CallToolResult, any, error) {
			return mcpCall(ctx, s, "write_file", in, func(call string) (any, error) {
				return s.ToolWrite(ctx, in.Path, []byte(in.Content), engine.ToolOptions{Call: call})
			})
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "edit_file", Description: "Replace the one occurrence of old_string in a file by new_string; undoable."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpEditIn) (*mcp.CallToolResult, any, error) {
			return mcpCall(ctx, s, "edit_file", in, func(call string) (any, error) {
				return s.ToolEdit(ctx, in.Path, in.OldString, in.NewString, engine.ToolOptions{Call: call})
			})
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "apply_patch", Description: "Apply a patch to several files at once, as one undoable change; a patch that does not apply changes nothing."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpPatchIn) (*mcp.CallToolResult, any, error) {
			return mcpCall(ctx, s, "apply_patch", in, func(call string) (any, error) {
				return s.ToolPatch(ctx, []byte(in.Patch), engine.ToolOptions{Call: call})
			})
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "run_shell", Description: "Run a shell line in the workspace; the files it changes are recorded, so revert_files can take them back. Answers with its output and exit code."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpShellIn) (*mcp.CallToolResult, any, error) {
			var buf bytes.Buffer
			res, a, err := mcpCall(ctx, s, "run_shell", in, func(call string) (any, error) {
				a, err := s.Exec(ctx, in.Command, engine.ExecOptions{Call: call, Stdout: &buf, Stderr: &buf})
				if a == nil {
					return nil, err
				}
				return a, err
			})
			if err != nil {
				return res, a, err
			}
			text := buf.String()
			if len(text) > engine.ShellKeepBytes {
				text = "[…]" + text[len(text)-engine.ShellKeepBytes:]
			}
			// The output first, for the model; the answer as structured content.
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, a, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "undo", Description: "Put back the files of the newest file-tool change (write_file, edit_file, apply_patch)."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ mcpNoIn) (*mcp.CallToolResult, any, error) {
			return mcpAnswer(s.Undo(ctx))
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "redo", Description: "Put the newest undone change back."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ mcpNoIn) (*mcp.CallToolResult, any, error) {
			return mcpAnswer(s.Redo(ctx))
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "list_snapshots", Description: "List this session's undoable changes, newest last, with the files each changed."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ mcpNoIn) (*mcp.CallToolResult, any, error) {
			return mcpAnswer(s.Snapshots(ctx))
		})
	addRevertTool(srv, s)
	return srv
}

type mcpRevertIn struct {
	Item  string `json:"item" jsonschema:"the item to revert to: an item id, or N for the Nth item of the conversation; a user prompt reverts its own turn's changes too"`
	Both  bool   `json:"both,omitempty" jsonschema:"also move the conversation back (default: files only)"`
	Apply bool   `json:"apply,omitempty" jsonschema:"run the revert; without it, only preview what it would do"`
}

// addRevertTool adds revert_files: a preview, then (apply) the revert.
func addRevertTool(srv *mcp.Server, s *engine.Session) {
	mcp.AddTool(srv, &mcp.Tool{Name: "revert_files", Description: "Revert the files this session's tool calls and shell lines changed after an item, newest first; files no record names (the user's own edits) stay. Call without apply to preview; a conflict refuses the whole revert and lists why."},
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
