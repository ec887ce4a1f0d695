package cli

// The property test of file revert across tool calls that run at the same
// time, through the agents' hooks and through MCP (the engine's API run is
// engine.TestPropOverlap): random histories from internal/callsim.
//
// Hooks: each event is a `cairn hook` process, as the agent runs it, Pre
// and Post of several calls interleaved; even seeds are Claude Code's
// (Bash, Write), odd seeds Codex's (Bash, apply_patch naming several
// files). MCP: batches of parallel tools/call requests (write_file,
// edit_file, run_shell) to `cairn mcp`'s server, a prompt now and then
// between batches. Both end with a hand edit now and then; then file
// revert to every prompt must put back what the files held there, or
// refuse naming a file changed by hand, and unrevert undo it
// (callsim.Model.Check).
//
// PROP_OVERLAP_HOOK_SEEDS (default 4) and PROP_OVERLAP_MCP_SEEDS (default
// 4) set how many histories run; PROP_SEED=n runs only seed n, verbosely.

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cairn/engine"
	"cairn/internal/callsim"
)

func propSeeds(name string, def int) (first, last int) {
	n := def
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		n = v
	}
	if v, err := strconv.Atoi(os.Getenv("PROP_SEED")); err == nil {
		return v, v + 1
	}
	return 0, n
}

// selfCairn is this test binary under the name cairn (TestMain runs it
// as the command): a hook process costs no build.
func selfCairn(t *testing.T) *procEnv {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "cairn")
	if err := os.Symlink(exe, bin); err != nil {
		t.Fatal(err)
	}
	return &procEnv{bin: bin, home: t.TempDir(), dir: t.TempDir()}
}

// propWorkspace makes callsim's workspace in dir: its folders, its
// .gitignore, and the history's first files.
func propWorkspace(t *testing.T, dir string, start map[string]string) {
	t.Helper()
	put := func(f, v string) {
		p := filepath.Join(dir, filepath.FromSlash(f))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put(".gitignore", callsim.Gitignore)
	for _, d := range callsim.Dirs() {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	for f, v := range start {
		put(f, v)
	}
}

// propApply makes change w in dir.
func propApply(t *testing.T, dir string, w callsim.Write) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(w.File))
	if w.Content == nil {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err := os.WriteFile(p, []byte(*w.Content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// propFiles is what callsim's files hold in dir.
func propFiles(dir string) map[string]string {
	out := map[string]string{}
	for _, f := range callsim.Files {
		if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f))); err == nil {
			out[f] = string(b)
		}
	}
	return out
}

// sessionTarget is callsim.Target through an engine session of dir.
type sessionTarget struct {
	ctx     context.Context
	s       *engine.Session
	dir     string
	prompts []string
}

func (d *sessionTarget) Read() (map[string]string, error) { return propFiles(d.dir), nil }

func (d *sessionTarget) Revert(i int) ([]callsim.Conflict, error) {
	_, err := d.s.Revert(d.ctx, d.prompts[i], engine.RevertFiles)
	var ce *engine.RevertConflictError
	if errors.As(err, &ce) {
		cs := []callsim.Conflict{}
		for _, c := range ce.Files.Conflicts {
			rel, _ := filepath.Rel(d.dir, c.Path)
			cs = append(cs, callsim.Conflict{Kind: c.Kind, Path: filepath.ToSlash(rel)})
		}
		return cs, nil
	}
	return nil, err
}

func (d *sessionTarget) Unrevert() error {
	_, err := d.s.Unrevert(d.ctx)
	return err
}

func TestPropOverlapHooks(t *testing.T) {
	first, last := propSeeds("PROP_OVERLAP_HOOK_SEEDS", 4)
	units := 0
	for seed := first; seed < last; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { units += propHooksRun(t, uint64(seed), last-first == 1) })
	}
	t.Logf("%d histories: %d overlap lines", last-first, units)
}

// propHooksRun runs one history; it returns how many overlap lines the
// calls wrote.
func propHooksRun(t *testing.T, seed uint64, verbose bool) int {
	agent, edits := "claude-code", 1
	if seed%2 == 1 {
		agent, edits = "codex", 2
	}
	r := rand.New(rand.NewPCG(seed, 0x400c5))
	h := callsim.Generate(r, callsim.Gen{Ops: 24, Parallel: 3, EditFiles: edits, HandEdit: true})
	env := &hookEnv{procEnv: selfCairn(t), sid: fmt.Sprintf("prop-%s-%d", agent, seed), agent: agent}
	propWorkspace(t, env.dir, h.Start)
	m := callsim.NewModel(h.Start)
	var done []string
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("seed %d (%s) after\n  %s\n%s", seed, agent, strings.Join(done, "\n  "), fmt.Sprintf(format, args...))
	}
	tool := func(c *callsim.Call) (string, map[string]any) {
		if c.Shell {
			return "Bash", map[string]any{"command": c.Line()}
		}
		if agent == "claude-code" {
			return "Write", map[string]any{"file_path": env.file(c.Paths[0]), "content": "x"}
		}
		var patch strings.Builder
		patch.WriteString("*** Begin Patch\n")
		for _, p := range c.Paths {
			fmt.Fprintf(&patch, "*** Add File: %s\n+x\n", p)
		}
		patch.WriteString("*** End Patch\n")
		return "apply_patch", map[string]any{"command": patch.String()}
	}
	for i, op := range h.Ops {
		done = append(done, op.String())
		if verbose {
			t.Log(op)
		}
		var ev map[string]any
		switch op.Kind {
		case callsim.Prompt:
			ev = map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": fmt.Sprint("step ", i)}
		case callsim.Begin, callsim.End:
			name, in := tool(op.Call)
			ev = map[string]any{"hook_event_name": "PreToolUse", "tool_name": name, "tool_input": in, "tool_use_id": op.Call.ID()}
			if op.Kind == callsim.End {
				ev["hook_event_name"] = "PostToolUse"
				ev["tool_response"] = map[string]any{"success": true}
			}
		case callsim.Change, callsim.HandEdit:
			propApply(t, env.dir, op.Write)
		}
		if ev != nil {
			if code, errs := env.event(t, ev); code != 0 || errs != "" {
				fail("%s: exit %d, stderr %q", op, code, errs)
			}
		}
		m.Apply(op)
		if d := callsim.Diff(m.Files, propFiles(env.dir)); d != "" {
			fail("files not as the model says: %s", d)
		}
	}
	ctx := context.Background()
	st, err := engine.Open(env.home)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ws, err := st.Workspace(env.dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ws.Open(ctx, env.session(), engine.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d := &sessionTarget{ctx: ctx, s: s, dir: env.dir}
	for _, it := range s.AllItems() {
		if it.Type == engine.User {
			d.prompts = append(d.prompts, it.ID)
		}
	}
	if len(d.prompts) != len(m.Prompts) {
		fail("%d prompts in the session, %d in the history", len(d.prompts), len(m.Prompts))
	}
	if bad := m.Check(d); len(bad) > 0 {
		fail("%s", strings.Join(bad, "\n"))
	}
	b, _ := os.ReadFile(filepath.Join(ws.Folder(), "sessions", s.ID()+".changes.jsonl"))
	return strings.Count(string(b), `"kind":"overlap"`)
}

func TestPropOverlapMCP(t *testing.T) {
	first, last := propSeeds("PROP_OVERLAP_MCP_SEEDS", 4)
	for seed := first; seed < last; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { propMCPRun(t, uint64(seed), last-first == 1) })
	}
}

// propMCPRun runs batches of parallel MCP calls, each a call of callsim's
// made at once (its writes: write_file or edit_file for one file,
// run_shell for a shell line), with a prompt between some batches.
func propMCPRun(t *testing.T, seed uint64, verbose bool) {
	r := rand.New(rand.NewPCG(seed, 0x3c9))
	h := callsim.Generate(r, callsim.Gen{Ops: 40, Instant: true, HandEdit: true})
	ctx := context.Background()
	dir, home := t.TempDir(), t.TempDir()
	propWorkspace(t, dir, h.Start)
	st, err := engine.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ws, err := st.Workspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := ws.Create(engine.SessionOptions{})
	defer s.Close()
	ct, sv := mcp.NewInMemoryTransports()
	srv := newMCPServer(s, ctx)
	ss, err := srv.Connect(ctx, sv, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "prop", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	m := callsim.NewModel(h.Start)
	d := &sessionTarget{ctx: ctx, s: s, dir: dir}
	var done []string
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("seed %d after\n  %s\n%s", seed, strings.Join(done, "\n  "), fmt.Sprintf(format, args...))
	}
	// Only the history's instant calls, prompts and hand edit: the rest
	// needs hooks. A batch is the instant calls between two other steps.
	var batch []*callsim.Call
	flush := func() {
		if len(batch) == 0 {
			return
		}
		var wg sync.WaitGroup
		errs := make([]string, len(batch))
		for i, c := range batch {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = propMCPCall(ctx, cs, dir, c)
			}()
		}
		wg.Wait()
		for _, e := range errs {
			if e != "" {
				fail("%s", e)
			}
		}
		batch = nil
		m.Observe(propFiles(dir))
	}
	for _, op := range h.Ops {
		switch op.Kind {
		case callsim.Instant:
			done = append(done, op.String())
			batch = append(batch, op.Call)
			if len(batch) == 4 {
				flush()
			}
			continue
		case callsim.Prompt, callsim.HandEdit:
		default:
			continue
		}
		flush()
		done = append(done, op.String())
		if verbose {
			t.Log(op)
		}
		if op.Kind == callsim.Prompt {
			it, err := s.Append(ctx, engine.Item{Type: engine.User, Text: "next"})
			if err != nil {
				t.Fatal(err)
			}
			d.prompts = append(d.prompts, it.ID)
		} else {
			propApply(t, dir, op.Write)
		}
		m.Apply(op)
	}
	flush()
	if bad := m.Check(d); len(bad) > 0 {
		fail("%s", strings.Join(bad, "\n"))
	}
}

// propMCPCall makes call c through MCP: "" when it went as it should (an
// edit_file whose old text a parallel call changed first may fail).
func propMCPCall(ctx context.Context, cs *mcp.ClientSession, dir string, c *callsim.Call) string {
	var name string
	var args map[string]any
	w := c.Writes[0]
	switch {
	case c.Shell || w.Content == nil:
		name, args = "run_shell", map[string]any{"command": c.RealLine()}
	default:
		name, args = "write_file", map[string]any{"path": w.File, "content": *w.Content}
		if old, err := os.ReadFile(filepath.Join(dir, w.File)); err == nil && len(old) > 0 && c.N%2 == 0 {
			name, args = "edit_file", map[string]any{"path": w.File, "old_string": string(old), "new_string": *w.Content}
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	switch {
	case err != nil:
		return fmt.Sprintf("%s %v: %v", name, args, err)
	case res.IsError && name != "edit_file":
		return fmt.Sprintf("%s %v: %v", name, args, res.Content)
	}
	return ""
}
