package engine

import (
	"errors"
	"fmt"
	"syscall"
	"testing"

	"cairn/internal/vfs"
)

// overlapScenario is three calls of an agent whose hooks overlap (two
// whole-workspace commands and an edit among them), as hook events, and
// the agent's writes between them.
type overlapScenario struct {
	start map[string]string
	held  map[string]bool // every content a file holds in it
	steps []func(e *snapEnv, s *Session)
}

func newOverlapScenario() *overlapScenario {
	begin := func(call, line string) func(*snapEnv, *Session) {
		return func(e *snapEnv, s *Session) { s.BeginExec(e.ctx, "bash", call, line, "") }
	}
	settle := func(call string) func(*snapEnv, *Session) {
		return func(e *snapEnv, s *Session) { s.SettleChange(e.ctx, call) }
	}
	put := func(f, v string) func(*snapEnv, *Session) {
		return func(e *snapEnv, _ *Session) { e.put(f, v) }
	}
	return &overlapScenario{
		start: map[string]string{"a.txt": "a0", "b.txt": "b0", "e.txt": "e0"},
		held:  map[string]bool{"a0": true, "a1": true, "a2": true, "b0": true, "b1": true, "e0": true, "e1": true},
		steps: []func(*snapEnv, *Session){
			begin("ta", "make"),
			put("a.txt", "a1"),
			func(e *snapEnv, s *Session) { s.beginHookChange(e.ctx, "edit", "te", []string{e.path("e.txt")}) },
			put("e.txt", "e1"),
			settle("te"),
			begin("tb", "for f in *; do :; done"),
			put("b.txt", "b1"),
			settle("ta"),
			put("a.txt", "a2"),
			settle("tb"),
		},
	}
}

// run plays the scenario in its own open of the session each, after the
// prompt; after(i) runs after step i (and after(-1) before the first,
// after(len(steps)) once the last is done). It then reverts to the prompt and
// checks what the test names say: exact (every file as at the prompt),
// or, without that, a revert that puts back what the records say or
// refuses and changes nothing, undone by unrevert; fsck clean either way.
func (o *overlapScenario) run(t *testing.T, e *snapEnv, exact bool, after func(i int)) {
	for f, v := range o.start {
		e.put(f, v)
	}
	a := AgentSession{Agent: "claude-code", ID: "overlap"}
	var prompt Item
	e.hookPair(a, func(s *Session) { prompt = must(s.Append(e.ctx, Item{Type: User, Text: "go"}))(t) })
	after(-1)
	for i, st := range o.steps {
		s, err := e.ws.OpenAgent(e.ctx, a, SessionOptions{}, true, 0)
		if err == nil {
			st(e, s)
			s.Close()
		}
		after(i)
	}
	after(len(o.steps))
	before := map[string]string{}
	for f := range o.start {
		before[f] = e.get(f)
	}
	var err error
	e.hookPair(a, func(s *Session) { _, err = s.Revert(e.ctx, prompt.ID, RevertFiles) })
	for f, v := range o.start {
		got := e.get(f)
		switch {
		case exact && got != v:
			t.Errorf("%s holds %q, want %q (%v)", f, got, v, err)
		case !o.held[got]:
			t.Errorf("%s holds %q, which it never held; revert: %v", f, got, err)
		case err != nil && got != before[f]:
			t.Errorf("a refused revert changed %s: %q, was %q (%v)", f, got, before[f], err)
		}
	}
	if exact && err != nil {
		t.Errorf("revert: %v", err)
	}
	if err == nil {
		e.hookPair(a, func(s *Session) {
			if _, err := s.Unrevert(e.ctx); err != nil && !errors.Is(err, ErrRefused) {
				t.Errorf("unrevert: %v", err)
			}
		})
		for f := range o.start {
			if got := e.get(f); got != before[f] {
				t.Errorf("after unrevert %s holds %q, was %q", f, got, before[f])
			}
		}
	}
	if rep := must(e.store.Fsck(e.ctx))(t); len(rep.Problems) != 0 {
		t.Errorf("fsck %+v", rep.Problems)
	}
}

// TestOverlapCrashBetweenHooks: a power loss after any hook event of the
// overlap scenario, cleanly or keeping a share of what was not synced
// (the markers are not synced: a call whose marker is lost goes
// unrecorded; the lines are), then the rest of the events. File revert to
// the prompt then puts back what the records say or refuses, changing
// nothing; unrevert undoes it; fsck finds nothing wrong. Without a crash
// every file is back as it was at the prompt. The state folder is on the
// crashing filesystem, the workspace on disk (the walks read it).
func TestOverlapCrashBetweenHooks(t *testing.T) {
	o := newOverlapScenario()
	for k := -1; k < len(o.steps); k++ {
		for _, seed := range []int{0, 1, 2} {
			if k < 0 && seed > 0 {
				continue
			}
			t.Run(fmt.Sprintf("after %d seed %d", k, seed), func(t *testing.T) {
				mem := vfs.NewMem()
				e, _ := faultyEnv(t)
				open := func() {
					e.store = must(OpenFS(mem, "/mem/home"))(t)
					e.ws = must(e.store.Workspace(e.dir))(t)
				}
				open()
				o.run(t, e, k < 0, func(i int) {
					if i == k {
						e.store.Close()
						crashBySeed(mem, k, seed)
						open()
					}
				})
				e.store.Close()
			})
		}
	}
}

// TestOverlapFaults: one failed write, sync or rename of the state folder
// anywhere in the overlap scenario's hooks (EIO, or ENOSPC on a write):
// the hook that met it fails or goes on without a record, and file revert
// to the prompt still puts back what the records say or refuses, changing
// nothing; unrevert undoes it; fsck finds nothing wrong. Every
// PROP_OVERLAP_FAULT_STEP-th call fails in turn (default 3; 1: every one,
// some 180).
func TestOverlapFaults(t *testing.T) {
	step := max(propEnvInt("PROP_OVERLAP_FAULT_STEP", 3), 1)
	o := newOverlapScenario()
	ops := []vfs.Op{vfs.OpWrite, vfs.OpSync, vfs.OpRename}
	names := map[vfs.Op]string{vfs.OpWrite: "write", vfs.OpSync: "sync", vfs.OpRename: "rename"}
	e, state := faultyEnv(t)
	calls := map[vfs.Op]int{}
	o.run(t, e, true, func(i int) {
		for _, op := range ops {
			switch i {
			case -1:
				calls[op] = -state.Calls(op)
			case len(o.steps):
				calls[op] += state.Calls(op)
			}
		}
	})
	for _, op := range ops {
		for skip := int(op) % step; skip < calls[op]; skip += step {
			err := error(syscall.EIO)
			if op == vfs.OpWrite && skip%2 == 1 {
				err = syscall.ENOSPC
			}
			t.Run(fmt.Sprintf("%s %d", names[op], skip), func(t *testing.T) {
				e, state := faultyEnv(t)
				o.run(t, e, false, func(i int) {
					switch i {
					case -1:
						state.Inject(vfs.Rule{Op: op, Skip: skip, Count: 1, Err: err})
					case len(o.steps):
						state.Reset()
					}
				})
			})
		}
	}
}
