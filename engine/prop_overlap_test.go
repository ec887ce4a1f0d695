package engine

// The property test of file revert across tool calls that run at the same
// time, through the engine's API (the hooks' and MCP's runs are in cli):
// random histories from internal/callsim of an agent's shell commands and
// file edits whose Begin and Settle interleave (BeginExec, beginHookChange,
// SettleChange), tools of this process run meanwhile (ToolWrite, ToolRm,
// Exec), prompts, undo, and a hand edit at the end. After every step the
// files are what the model says (undo of a file tool's call puts back its
// own pre-images, whatever ran beside it); a call that ran beside no call
// whose scope meets its own keeps its own record; and file revert to every
// prompt puts back what the files held there, or refuses naming a file
// changed by hand (callsim.Model.Check), and unrevert undoes it.
//
// Odd seeds open the session for each step, as an agent's hooks do (one
// process an event); even seeds keep one session open. PROP_OVERLAP_SEEDS
// (default 16) sets how many histories run, PROP_OVERLAP_OPS their length
// (default 24); PROP_SEED=n runs only seed n, verbosely.

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/engine/internal/changes"
	"cairn/internal/callsim"
)

func TestPropOverlap(t *testing.T) {
	seeds := propEnvInt("PROP_OVERLAP_SEEDS", 16)
	ops := propEnvInt("PROP_OVERLAP_OPS", 24)
	first, last := 0, seeds
	if one := propEnvInt("PROP_SEED", -1); one >= 0 {
		first, last = one, one+1
	}
	calls, units, failed := 0, 0, 0
	for seed := first; seed < last; seed++ {
		ok := t.Run(fmt.Sprint(seed), func(t *testing.T) {
			c, u := propOverlapRun(t, uint64(seed), ops, last-first == 1)
			calls, units = calls+c, units+u
		})
		if !ok {
			if failed++; failed >= 5 {
				t.Fatalf("stopping after %d failing seeds", failed)
			}
		}
	}
	t.Logf("%d histories of %d steps: %d calls, %d overlap lines", last-first, ops, calls, units)
}

// propOverlapRun runs one history; it returns how many calls it made and
// how many overlap lines they wrote.
func propOverlapRun(t *testing.T, seed uint64, ops int, verbose bool) (int, int) {
	r := rand.New(rand.NewPCG(seed, 0xca11))
	h := callsim.Generate(r, callsim.Gen{Ops: ops, Parallel: 3, EditFiles: 2, Instant: true, Undo: true, HandEdit: true})
	e := newSnapEnv(t, "")
	ctx := e.ctx
	e.put(".gitignore", callsim.Gitignore)
	for _, d := range callsim.Dirs() {
		os.MkdirAll(e.path(d), 0o755)
	}
	for f, v := range h.Start {
		e.put(f, v)
	}
	a := AgentSession{Agent: "claude-code", ID: fmt.Sprintf("prop-%d", seed)}
	reopen := seed%2 == 1
	var s *Session
	open := func() *Session { return must(e.ws.OpenAgent(ctx, a, SessionOptions{}, true, 0))(t) }
	if !reopen {
		s = open()
		defer func() { s.Close() }()
	}
	with := func(fn func(s *Session) error) error {
		if !reopen {
			return fn(s)
		}
		s := open()
		defer s.Close()
		return fn(s)
	}
	var done []string
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("seed %d after\n  %s\n%s", seed, strings.Join(done, "\n  "), fmt.Sprintf(format, args...))
	}
	m := callsim.NewModel(h.Start)
	var prompts []string
	for i, op := range h.Ops {
		done = append(done, op.String())
		if verbose {
			t.Log(op)
		}
		c := op.Call
		err := with(func(s *Session) error {
			switch op.Kind {
			case callsim.Prompt:
				it, err := s.Append(ctx, Item{Type: User, Text: fmt.Sprint("step ", i)})
				prompts = append(prompts, it.ID)
				return err
			case callsim.Begin:
				if c.Shell {
					_, err := s.BeginExec(ctx, "bash", c.ID(), c.Line(), "")
					return err
				}
				var abs []string
				for _, p := range c.Paths {
					abs = append(abs, e.path(p))
				}
				_, err := s.beginHookChange(ctx, "apply_patch", c.ID(), abs)
				return err
			case callsim.End:
				ans, err := s.SettleChange(ctx, c.ID())
				if ans != nil && ans.Snapshot != nil {
					c.Rec = *ans.Snapshot
				}
				return err
			case callsim.Instant:
				var snap *string
				switch w := c.Writes[0]; {
				case c.Shell:
					ans, err := s.Exec(ctx, c.RealLine(), ExecOptions{})
					if err != nil || ans.ExitCode != 0 {
						return fmt.Errorf("exec %q: %v %+v", c.RealLine(), err, ans)
					}
					snap = ans.Snapshot
				case w.Content == nil:
					ans, err := s.ToolRm(ctx, e.path(w.File))
					if err != nil {
						return err
					}
					snap = ans.Snapshot
				default:
					ans, err := s.ToolWrite(ctx, e.path(w.File), []byte(*w.Content))
					if err != nil {
						return err
					}
					snap = ans.Snapshot
				}
				if snap != nil {
					c.Rec = *snap
				}
			case callsim.Undo:
				_, err := s.Undo(ctx)
				if m.CanUndo() != (err == nil) {
					return fmt.Errorf("undo: %v, the model has a change to undo: %v", err, m.CanUndo())
				}
			}
			return nil
		})
		if err != nil {
			fail("%s: %v", op, err)
		}
		if op.Kind == callsim.Change || op.Kind == callsim.HandEdit {
			e.write(op.Write)
		}
		m.Apply(op)
		if d := callsim.Diff(m.Files, e.files()); d != "" {
			fail("files not as the model says: %s", d)
		}
	}
	if ms, _ := filepath.Glob(filepath.Join(e.ws.Folder(), "hooks", ImportSessionID(a.Agent, a.ID), "*")); len(ms) != 0 {
		fail("markers left once every call ended: %v", ms)
	}
	// A call alone keeps its own record: no overlap line names it.
	members := map[string]bool{}
	units := 0
	var ls []map[string]any
	with(func(s *Session) error {
		ls = e.lines(s)
		return nil
	})
	for _, l := range ls {
		if l["kind"] == changes.KindOverlap {
			units++
			for _, mem := range l["members"].([]any) {
				id, _ := mem.(map[string]any)["id"].(string)
				members[id] = true
			}
		}
	}
	for _, c := range h.Calls {
		if c.Rec != "" && members[c.Rec] && h.Alone(c) {
			fail("call %s ran beside no call whose scope meets its own, yet an overlap line names it", c)
		}
	}
	d := &engineTarget{e: e, open: open, prompts: prompts}
	if reopen {
		d.s = open()
	} else {
		d.s = s
	}
	defer func() {
		if reopen {
			d.s.Close()
		}
	}()
	if bad := m.Check(d); len(bad) > 0 {
		fail("%s", strings.Join(bad, "\n"))
	}
	return len(h.Calls), units
}

// write makes change w to the workspace (a call's, or a hand edit).
func (e *snapEnv) write(w callsim.Write) {
	e.t.Helper()
	if w.Content == nil {
		if err := os.Remove(e.path(w.File)); err != nil {
			e.t.Fatal(err)
		}
		return
	}
	e.put(w.File, *w.Content)
}

// files is what callsim's files hold in the workspace.
func (e *snapEnv) files() map[string]string {
	out := map[string]string{}
	for _, f := range callsim.Files {
		if b, err := os.ReadFile(e.path(f)); err == nil {
			out[f] = string(b)
		}
	}
	return out
}

// engineTarget is callsim.Target through a session of the engine.
type engineTarget struct {
	e       *snapEnv
	s       *Session
	open    func() *Session
	prompts []string
}

func (d *engineTarget) Read() (map[string]string, error) { return d.e.files(), nil }

func (d *engineTarget) Revert(i int) ([]callsim.Conflict, error) {
	_, err := d.s.Revert(d.e.ctx, d.prompts[i], RevertFiles)
	var ce *RevertConflictError
	if errors.As(err, &ce) {
		cs := []callsim.Conflict{}
		for _, c := range ce.Files.Conflicts {
			rel, _ := filepath.Rel(d.e.dir, c.Path)
			cs = append(cs, callsim.Conflict{Kind: c.Kind, Path: filepath.ToSlash(rel)})
		}
		return cs, nil
	}
	return nil, err
}

func (d *engineTarget) Unrevert() error {
	_, err := d.s.Unrevert(d.e.ctx)
	return err
}
