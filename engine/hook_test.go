package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"cairn/internal/vfs"
	"cairn/journal"
)

// TestAgentSessionNeverReplaced: an agent's session id is not random, so
// a second process may try to make it after the first did; the journal
// the first wrote must never be replaced (materialize's check), and
// OpenAgent then opens it.
func TestAgentSessionNeverReplaced(t *testing.T) {
	e := newSnapEnv(t, "")
	a := AgentSession{Agent: "claude-code", ID: "abc", Transcript: "/t/abc.jsonl"}
	s := must(e.ws.OpenAgent(e.ctx, a, SessionOptions{}, true, 0))(t)
	if s.ID() != ImportSessionID("claude-code", "abc") {
		t.Fatalf("id %s", s.ID())
	}
	must(s.Append(e.ctx, Item{Type: User, Text: "first prompt"}))(t)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(e.store.home + "/" + itemsName(e.ws.dir, s.ID()))
	// A racing creator that read "not there" before the first wrote it.
	if _, err := e.ws.createAgent(s.ID(), a, SessionOptions{}); !errors.Is(err, errCreated) {
		t.Fatalf("second create: %v, want errCreated", err)
	}
	after, _ := os.ReadFile(e.store.home + "/" + itemsName(e.ws.dir, s.ID()))
	if string(before) != string(after) || len(before) == 0 {
		t.Fatalf("journal replaced:\n%s\nwas\n%s", after, before)
	}
	s = must(e.ws.OpenAgent(e.ctx, a, SessionOptions{}, true, 0))(t)
	defer s.Close()
	if tr := s.Transcript(); len(tr) != 1 || tr[0].Text != "first prompt" {
		t.Fatalf("transcript %v", tr)
	}
	// A second owner waits, then is busy.
	if _, err := e.ws.OpenAgent(e.ctx, a, SessionOptions{}, true, 20*time.Millisecond); !errors.Is(err, ErrBusy) {
		t.Fatalf("second owner: %v, want ErrBusy", err)
	}
}

// TestAgentWaitsForHooksOnly: a hook waits for another hook (a brief
// owner, which lets go after one call), never for a session a person
// holds open (the REPL, cairn mcp): that one is busy at once, saying its
// owner is not brief, however long the hook was ready to wait.
func TestAgentWaitsForHooksOnly(t *testing.T) {
	e := newSnapEnv(t, "")
	a := AgentSession{Agent: "claude-code", ID: "held"}
	brief := SessionOptions{Brief: true}
	s := must(e.ws.OpenAgent(e.ctx, a, brief, true, 0))(t)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	person := must(e.ws.Open(e.ctx, ImportSessionID(a.Agent, a.ID), SessionOptions{}))(t)
	_, err := e.ws.OpenAgent(e.ctx, a, brief, false, time.Hour)
	var busy *BusyError
	if !errors.As(err, &busy) || busy.Brief || busy.PID != os.Getpid() {
		t.Fatalf("open while a person holds it: %v, want a *BusyError of a non-brief owner", err)
	}
	person.Close()

	hook := must(e.ws.OpenAgent(e.ctx, a, brief, false, 0))(t)
	got := make(chan error, 1)
	go func() {
		s, err := e.ws.OpenAgent(e.ctx, a, brief, false, time.Hour)
		if err == nil {
			err = s.Close()
		}
		got <- err
	}()
	// The second hook waits while the first holds the session; then it
	// gets it.
	if err := hook.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatalf("the waiting hook: %v", err)
	}
}

// TestPendingChangeSettles: beginHookChange and SettleChange on two opens of
// the session (two hook processes): a change line when a file changed,
// none when nothing did, and the marker gone either way.
func TestPendingChangeSettles(t *testing.T) {
	e := newSnapEnv(t, "")
	a := AgentSession{Agent: "codex", ID: "x"}
	e.put("a.txt", "a0")
	open := func() *Session { return must(e.ws.OpenAgent(e.ctx, a, SessionOptions{}, true, 0))(t) }
	s := open()
	must(s.beginHookChange(e.ctx, "apply_patch", "call_1", []string{"a.txt", "b.txt"}))(t)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	e.put("a.txt", "a1")
	s = open()
	ans := must(s.SettleChange(e.ctx, "call_1"))(t)
	if ans == nil || ans.Snapshot == nil || len(ans.Files) != 2 {
		t.Fatalf("answer %+v", ans)
	}
	if k := e.kinds(s); k != "change" {
		t.Fatalf("lines %q", k)
	}
	must(s.beginHookChange(e.ctx, "apply_patch", "call_2", []string{"a.txt"}))(t)
	if ans := must(s.SettleChange(e.ctx, "call_2"))(t); ans.Snapshot != nil {
		t.Fatalf("a change of nothing took snapshot %v", *ans.Snapshot)
	}
	if ans := must(s.SettleChange(e.ctx, "call_2"))(t); ans != nil {
		t.Fatalf("settled twice: %+v", ans)
	}
	if k := e.kinds(s); k != "change" {
		t.Fatalf("lines %q", k)
	}
	must(s.Undo(e.ctx))(t)
	e.want("a.txt", "a0")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestHookChangeCrashAtEverySyncPoint: a power loss at each sync point of
// a hook pair (beginHookChange in one process, the agent's write, SettleChange
// in the next) leaves a session that opens, and lists the edit or not;
// when it does, one undo gives back the old content exactly. A pair whose
// SettleChange returned is never lost. Both as the hook runs it (Brief:
// no open line, the close line under the change line's sync) and with a
// full open; and as `cairn hook` runs it, the session opened for its
// change records only (BeginAgentChange, SettleAgentChange).
func TestHookChangeCrashAtEverySyncPoint(t *testing.T) {
	for _, brief := range []bool{true, false} {
		t.Run(fmt.Sprintf("brief=%v", brief), func(t *testing.T) { hookChangeCrashAtEverySyncPoint(t, brief, false) })
	}
	t.Run("changes-only", func(t *testing.T) { hookChangeCrashAtEverySyncPoint(t, true, true) })
}

func hookChangeCrashAtEverySyncPoint(t *testing.T, brief, changesOnly bool) {
	ctx := context.Background()
	dir := t.TempDir()
	big := strings.Repeat("a line of the big file\n", 1500) // an object pre-image
	a := AgentSession{Agent: "claude-code", ID: "crash"}
	points := 0
	for n := 0; ; n++ {
		completed := false
		for seed := range 3 {
			mem := vfs.NewMem()
			wsfs := WithWorkspaceFS(func(string) (vfs.FS, error) { return mem, nil })
			st := must(OpenFS(mem, "/mem", wsfs))(t)
			ws := must(st.Workspace(dir))(t)
			s := must(ws.OpenAgent(ctx, a, SessionOptions{Brief: brief}, true, 0))(t)
			must(s.Append(ctx, Item{Type: User, Text: "edit"}))(t)
			if err := vfs.WriteFileAtomic(mem, "f.txt", []byte(big)); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			mem.FailAfterSyncs(n)
			err := func() error {
				if changesOnly {
					if _, err := ws.BeginAgentChange(ctx, a, SessionOptions{Brief: brief}, 0, "edit", "toolu_1", []string{"f.txt"}); err != nil {
						return err
					}
					if err := vfs.WriteFileAtomic(mem, "f.txt", []byte("new")); err != nil {
						return err
					}
					_, err := ws.SettleAgentChange(ctx, a, SessionOptions{Brief: brief}, 0, "toolu_1")
					return err
				}
				s, err := ws.OpenAgent(ctx, a, SessionOptions{Brief: brief}, true, 0)
				if err != nil {
					return err
				}
				defer s.Close()
				if _, err := s.beginHookChange(ctx, "edit", "toolu_1", []string{"f.txt"}); err != nil {
					return err
				}
				if err := s.Close(); err != nil {
					return err
				}
				if err := vfs.WriteFileAtomic(mem, "f.txt", []byte("new")); err != nil {
					return err
				}
				if s, err = ws.OpenAgent(ctx, a, SessionOptions{Brief: brief}, false, 0); err != nil {
					return err
				}
				defer s.Close()
				if _, err := s.SettleChange(ctx, "toolu_1"); err != nil {
					return err
				}
				return s.Close()
			}()
			if err != nil && !errors.Is(err, vfs.ErrCrashed) {
				t.Fatalf("sync point %d: %v", n, err)
			}
			completed = err == nil
			if seed == 0 {
				mem.Crash()
			} else {
				mem.CrashPartial(rand.New(rand.NewPCG(uint64(n), uint64(seed))))
			}
			st.Close()
			st = must(OpenFS(mem, "/mem", wsfs))(t)
			ws = must(st.Workspace(dir))(t)
			s2, err := ws.OpenAgent(ctx, a, SessionOptions{Brief: brief}, false, 0)
			if err != nil {
				t.Fatalf("sync point %d seed %d: open: %v", n, seed, err)
			}
			l := must(s2.Snapshots(ctx))(t)
			if completed && seed == 0 && len(l.Snapshots) != 1 {
				t.Fatalf("sync point %d: a settled edit was lost", n)
			}
			if len(l.Snapshots) == 1 {
				must(s2.Undo(ctx))(t)
				if b, _ := vfs.ReadFile(mem, "f.txt"); string(b) != big {
					t.Fatalf("sync point %d seed %d: undo gave %d bytes", n, seed, len(b))
				}
			}
			s2.Close()
			st.Close()
			if completed {
				break
			}
		}
		if completed {
			break
		}
		if n > 200 {
			t.Fatal("the hook pair never completed")
		}
		points++
	}
	if points < 4 {
		t.Fatalf("only %d sync points", points)
	}
	t.Logf("%d sync points", points)
}

// TestBriefHookPairWritesLittle: a hook pair opened Brief, as `cairn hook`
// does, leaves the items journal and the record as they were (no open
// line, no record rewrite), and its post-tool hook ends the change line
// with the close line under one sync; a full open then undoes the edit.
func TestBriefHookPairWritesLittle(t *testing.T) {
	for _, changesOnly := range []bool{false, true} {
		t.Run(fmt.Sprintf("changes-only=%v", changesOnly), func(t *testing.T) { briefHookPairWritesLittle(t, changesOnly) })
	}
}

func briefHookPairWritesLittle(t *testing.T, changesOnly bool) {
	ctx := context.Background()
	mem := vfs.NewMem()
	wsfs := WithWorkspaceFS(func(string) (vfs.FS, error) { return mem, nil })
	st := must(OpenFS(mem, "/mem", wsfs))(t)
	defer st.Close()
	ws := must(st.Workspace(t.TempDir()))(t)
	a := AgentSession{Agent: "claude-code", ID: "brief"}
	s := must(ws.OpenAgent(ctx, a, SessionOptions{}, true, 0))(t)
	must(s.Append(ctx, Item{Type: User, Text: "edit"}))(t)
	id := s.ID()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := vfs.WriteFileAtomic(mem, "f.txt", []byte("old")); err != nil {
		t.Fatal(err)
	}
	read := func(name string) string { b, _ := vfs.ReadFile(mem, name); return string(b) }
	items, record := read(itemsName(ws.dir, id)), read(recordName(ws.dir, id))
	brief := SessionOptions{Brief: true}
	// Two pairs: the first makes the changes journal (its folder synced).
	for i, content := range []string{"mid", "new"} {
		call := fmt.Sprintf("toolu_%d", i)
		if changesOnly {
			must(ws.BeginAgentChange(ctx, a, brief, 0, "edit", call, []string{"f.txt"}))(t)
		} else {
			s = must(ws.OpenAgent(ctx, a, brief, false, 0))(t)
			must(s.beginHookChange(ctx, "edit", call, []string{"f.txt"}))(t)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		}
		if err := vfs.WriteFileAtomic(mem, "f.txt", []byte(content)); err != nil {
			t.Fatal(err)
		}
		syncs := mem.Syncs()
		var ans *ToolAnswer
		if changesOnly {
			ans = must(ws.SettleAgentChange(ctx, a, brief, 0, call))(t)
		} else {
			s = must(ws.OpenAgent(ctx, a, brief, false, 0))(t)
			syncs = mem.Syncs()
			ans = must(s.SettleChange(ctx, call))(t)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		}
		if ans == nil || ans.Snapshot == nil {
			t.Fatalf("answer %+v", ans)
		}
		if n := mem.Syncs() - syncs; i == 1 && n != 1 {
			t.Fatalf("the post-tool hook took %d syncs, want 1", n)
		}
	}
	if k := changeKinds(mem, ws, id); k != "change,close,change,close" {
		t.Fatalf("changes journal %q, want change,close twice", k)
	}
	if read(itemsName(ws.dir, id)) != items {
		t.Fatalf("items journal changed:\n%s", read(itemsName(ws.dir, id)))
	}
	if read(recordName(ws.dir, id)) != record {
		t.Fatal("record rewritten")
	}
	s = must(ws.OpenAgent(ctx, a, SessionOptions{}, false, 0))(t)
	defer s.Close()
	must(s.Undo(ctx))(t)
	must(s.Undo(ctx))(t)
	if b := read("f.txt"); b != "old" {
		t.Fatalf("undo gave %q", b)
	}
}

// TestBriefHookKeepsBranch: a session only hooks ever opened (Brief: no
// open line) keeps the branch its session line was made on, in its record
// and the listing, after a later hook writes a prompt and ends the turn
// (both rewrite the record from the journal).
func TestBriefHookKeepsBranch(t *testing.T) {
	e := newSnapEnv(t, "")
	if err := os.MkdirAll(e.ws.Path()+"/.git", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e.ws.Path()+"/.git/HEAD", []byte("ref: refs/heads/topic\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := AgentSession{Agent: "claude-code", ID: "branch"}
	brief := SessionOptions{Brief: true}
	// Each a hook process: the prompt that makes the session, the end of
	// its turn, the next prompt.
	for i, hook := range []func(*Session) error{
		func(s *Session) error { _, err := s.appendPrompt(e.ctx, "one", ""); return err },
		func(s *Session) error { return s.EndTurn(e.ctx, Turn{}) },
		func(s *Session) error { _, err := s.appendPrompt(e.ctx, "two", ""); return err },
	} {
		s := must(e.ws.OpenAgent(e.ctx, a, brief, true, 0))(t)
		if err := hook(s); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if b := s.Record().Branch; b != "topic" {
			t.Fatalf("after hook %d the record says branch %q, want topic", i, b)
		}
	}
	l, _, err := e.ws.List(e.ctx)
	if err != nil || len(l) != 1 || l[0].Branch != "topic" || l[0].Items != 2 {
		t.Fatalf("listing %+v (%v): want one session of 2 items on branch topic", l, err)
	}
}

// changeKinds is the kinds of session id's changes journal lines, in order,
// joined by commas.
func changeKinds(fsys vfs.FS, ws *Workspace, id string) string {
	var kinds []string
	journal.Read(fsys, changesName(ws.dir, id), func(b []byte) error {
		var l struct{ Kind string }
		json.Unmarshal(b, &l)
		kinds = append(kinds, l.Kind)
		return nil
	})
	return strings.Join(kinds, ",")
}
