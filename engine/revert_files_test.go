package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/fstate"
	"cairn/internal/vfs"
)

// Tests of file revert (revert_files.go): the boundary, only recorded
// paths, each conflict kind, each refusal, stacking and unrevert.

type rvEnv struct {
	t   *testing.T
	ctx context.Context
	mem *vfs.Mem
	st  *Store
	ws  *Workspace
	s   *Session
	dir string
	// clock and faulty, when set, are the store's clock and the files'
	// (store and workspace) fault injector over mem.
	clock  func() time.Time
	faulty *vfs.Faulty
}

func newRvEnv(t *testing.T) *rvEnv {
	t.Helper()
	return newRvEnvWith(t, nil, false)
}

// newRvEnvWith is newRvEnv with the store's clock (nil: the real one) and,
// with faults, the files behind a fault injector (e.faulty).
func newRvEnvWith(t *testing.T, clock func() time.Time, faults bool) *rvEnv {
	t.Helper()
	e := &rvEnv{t: t, ctx: context.Background(), mem: vfs.NewMem(), dir: t.TempDir(), clock: clock}
	if faults {
		e.faulty = vfs.NewFaulty(e.mem)
	}
	e.open()
	e.s = e.ws.Create(SessionOptions{})
	t.Cleanup(func() { e.s.Close(); e.st.Close() })
	return e
}

// open opens the store (again) over the same files.
func (e *rvEnv) open() {
	e.st = openStore(e.t, storeSpec{mem: e.mem, faulty: e.faulty, wsOnState: true, clock: e.clock, closedByCaller: true}).Store
	e.ws = must(e.st.Workspace(e.dir))(e.t)
}

// reopen closes the session and the store and opens both again.
func (e *rvEnv) reopen(opts SessionOptions) {
	e.t.Helper()
	id := e.s.ID()
	e.s.Close()
	e.st.Close()
	e.open()
	e.s = must(e.ws.Open(e.ctx, id, opts))(e.t)
}

func (e *rvEnv) prompt(text string) Item {
	return must(e.s.Append(e.ctx, Item{Type: User, Text: text}))(e.t)
}

func (e *rvEnv) say(text string) Item {
	return must(e.s.Append(e.ctx, Item{Type: Assistant, Text: text}))(e.t)
}

func (e *rvEnv) call(tool string) Item {
	return must(e.s.Append(e.ctx, Item{Type: ToolCall, Tool: tool, Text: "{}"}))(e.t)
}

func (e *rvEnv) result(call Item) Item {
	return must(e.s.Append(e.ctx, Item{Type: ToolResult, Call: call.ID, Text: "ok"}))(e.t)
}

// write runs the write tool as tool call c ("" for the turn's prompt).
func (e *rvEnv) write(c, path, content string) {
	e.t.Helper()
	must(e.s.ToolWrite(e.ctx, path, []byte(content), ToolOptions{Call: c}))(e.t)
}

func (e *rvEnv) rm(c, path string) {
	e.t.Helper()
	must(e.s.ToolRm(e.ctx, path, ToolOptions{Call: c}))(e.t)
}

// hand is an edit of the user's, with no record.
func (e *rvEnv) hand(path, content string) {
	e.t.Helper()
	if i := strings.LastIndex(path, "/"); i > 0 {
		e.mem.MkdirAll(path[:i], 0o755)
	}
	if err := vfs.WriteFileAtomic(e.mem, path, []byte(content)); err != nil {
		e.t.Fatal(err)
	}
}

// file is path's content, or "<none>".
func (e *rvEnv) file(path string) string {
	b, err := vfs.ReadFile(e.mem, path)
	if vfs.IsNotExist(err) {
		return "<none>"
	}
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

func (e *rvEnv) want(files map[string]string) {
	e.t.Helper()
	for p, c := range files {
		if got := e.file(p); got != c {
			e.t.Fatalf("%s holds %q, want %q", p, got, c)
		}
	}
}

// conflicts is the refusal's conflicts as "kind path" (relative), or fails.
func (e *rvEnv) conflicts(err error) []string {
	e.t.Helper()
	var ce *RevertConflictError
	if !errors.As(err, &ce) || !errors.Is(err, ErrRefused) {
		e.t.Fatalf("not a conflict refusal: %v", err)
	}
	var out []string
	for _, c := range ce.Files.Conflicts {
		out = append(out, c.Kind+" "+strings.TrimPrefix(c.Path, e.ws.absPath("")+"/"))
	}
	return out
}

// TestFileRevertSeedExample: the agent edits a.rs and b.rs, the user then
// edits c.rs; reverting to the prompt that began the agent's turn restores
// a.rs and b.rs and leaves c.rs alone.
func TestFileRevertSeedExample(t *testing.T) {
	e := newRvEnv(t)
	e.hand("a.rs", "a0")
	e.hand("b.rs", "b0")
	e.hand("c.rs", "c0")
	e.prompt("warm up")
	p := e.prompt("fix a and b")
	c1 := e.call("edit")
	e.write(c1.ID, "a.rs", "a1")
	e.result(c1)
	c2 := e.call("edit")
	e.write(c2.ID, "b.rs", "b1")
	e.result(c2)
	e.hand("c.rs", "c1 mine")
	pre := must(e.s.PreviewRevert(e.ctx, p.ID, RevertFiles))(t)
	if f := pre.Files; f.Replace != 2 || f.Create != 0 || f.Delete != 0 || f.Applied || !pre.Preview {
		t.Fatalf("preview %+v", f)
	}
	e.want(map[string]string{"a.rs": "a1", "b.rs": "b1"}) // a preview changes nothing
	head := e.s.Head()
	res := must(e.s.Revert(e.ctx, p.ID, RevertFiles))(t)
	e.want(map[string]string{"a.rs": "a0", "b.rs": "b0", "c.rs": "c1 mine"})
	if e.s.Head() != head || res.Files.Replace != 2 {
		t.Fatalf("a files revert moved the head or miscounted: %+v", res.Files)
	}
	// Newest first.
	if got := res.Files.Files[0].Path; !strings.HasSuffix(got, "b.rs") {
		t.Fatalf("first file reverted %s, want b.rs", got)
	}
}

// TestFileRevertBoundary: a user prompt reverts its own turn's changes
// too; a tool call keeps its own change; an assistant item keeps what came
// before it; a compaction counts from its original.
func TestFileRevertBoundary(t *testing.T) {
	setup := func(t *testing.T) (*rvEnv, map[string]Item) {
		e := newRvEnv(t)
		m := map[string]Item{}
		m["p1"] = e.prompt("one")
		e.write("", "f.txt", "by p1") // a tool line of the turn: names the prompt
		m["c1"] = e.call("write")
		e.write(m["c1"].ID, "f.txt", "by c1")
		m["r1"] = e.result(m["c1"])
		m["a1"] = e.say("done one")
		m["p2"] = e.prompt("two")
		m["c2"] = e.call("write")
		e.write(m["c2"].ID, "f.txt", "by c2")
		m["r2"] = e.result(m["c2"])
		return e, m
	}
	for _, c := range []struct {
		at, want string
	}{
		{"p1", "<none>"}, {"c1", "by c1"}, {"r1", "by c1"}, {"a1", "by c1"}, {"p2", "by c1"}, {"c2", "by c2"},
	} {
		t.Run(c.at, func(t *testing.T) {
			e, m := setup(t)
			must(e.s.Revert(e.ctx, m[c.at].ID, RevertFiles))(t)
			e.want(map[string]string{"f.txt": c.want})
		})
	}
	t.Run("compaction", func(t *testing.T) {
		e, m := setup(t)
		k := must(e.s.Compact(e.ctx, "", ""))(t) // replaces p1 .. a1
		if k.Replaces[1] != m["a1"].ID {
			t.Fatalf("compaction replaces %v", k.Replaces)
		}
		res := must(e.s.Revert(e.ctx, k.ID, RevertBoth))(t)
		e.want(map[string]string{"f.txt": "by c1"})
		if res.Head != m["a1"].ID {
			t.Fatalf("head %s, want the original a1", res.Head)
		}
	})
	t.Run("compaction without its original", func(t *testing.T) {
		e, m := setup(t)
		k := must(e.s.Append(e.ctx, Item{Type: Compaction, Text: "lost", Replaces: []string{m["p1"].ID, "i-gone"}}))(t)
		if _, err := e.s.Revert(e.ctx, k.ID, RevertFiles); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "original") {
			t.Fatalf("revert to a compaction without its original: %v", err)
		}
		e.want(map[string]string{"f.txt": "by c2"})
	})
}

// TestFileRevertBoth: the files first, then the head; a conflict refuses
// both halves, and a conversation revert still works.
func TestFileRevertBoth(t *testing.T) {
	e := newRvEnv(t)
	e.prompt("one")
	p := e.prompt("two")
	c := e.call("write")
	e.write(c.ID, "x.txt", "x1")
	e.result(c)
	e.hand("x.txt", "x1 then mine")
	head := e.s.Head()
	_, err := e.s.Revert(e.ctx, p.ID, RevertBoth)
	if got := e.conflicts(err); len(got) != 1 || got[0] != "changed x.txt" {
		t.Fatalf("conflicts %v", got)
	}
	if e.s.Head() != head {
		t.Fatal("a refused revert both moved the head")
	}
	e.want(map[string]string{"x.txt": "x1 then mine"})
	if _, err := e.s.Revert(e.ctx, p.ID, RevertConversation); err != nil {
		t.Fatal(err)
	}
	e.hand("x.txt", "x1")
	e.mem.Chmod("x.txt", 0o644) // as the tool left it: the bits count too
	must(e.s.Unrevert(e.ctx))(t)
	res := must(e.s.Revert(e.ctx, p.ID, RevertBoth))(t)
	if res.Head != p.Parent || res.Draft != "two" {
		t.Fatalf("head %s draft %q", res.Head, res.Draft)
	}
	e.want(map[string]string{"x.txt": "<none>"})
}

// TestFileRevertConflicts: one test per kind; each refuses the whole
// revert and changes nothing.
func TestFileRevertConflicts(t *testing.T) {
	t.Run("changed", func(t *testing.T) {
		e := newRvEnv(t)
		p := e.prompt("go")
		e.write("", "a.txt", "a1")
		e.write("", "b.txt", "b1")
		e.hand("b.txt", "b1 and mine")
		_, err := e.s.Revert(e.ctx, p.ID, RevertFiles)
		if got := e.conflicts(err); fmt.Sprint(got) != "[changed b.txt]" {
			t.Fatalf("conflicts %v", got)
		}
		e.want(map[string]string{"a.txt": "a1", "b.txt": "b1 and mine"})
	})
	t.Run("interleaved by hand", func(t *testing.T) {
		e := newRvEnv(t)
		p := e.prompt("go")
		e.write("", "a.txt", "a1")
		e.hand("a.txt", "mine")
		e.write("", "a.txt", "a2")
		_, err := e.s.Revert(e.ctx, p.ID, RevertFiles)
		if got := e.conflicts(err); fmt.Sprint(got) != "[interleaved a.txt]" {
			t.Fatalf("conflicts %v", got)
		}
		e.want(map[string]string{"a.txt": "a2"})
	})
	t.Run("interleaved by another session", func(t *testing.T) {
		e := newRvEnv(t)
		p := e.prompt("go")
		e.write("", "a.txt", "a1")
		other := e.ws.Create(SessionOptions{})
		defer other.Close()
		must(other.Append(e.ctx, Item{Type: User, Text: "other"}))(t)
		must(other.ToolWrite(e.ctx, "a.txt", []byte("theirs")))(t)
		must(other.ToolWrite(e.ctx, "a.txt", []byte("a1")))(t) // and back: the chain still meets
		e.write("", "a.txt", "a2")
		_, err := e.s.Revert(e.ctx, p.ID, RevertFiles)
		if got := e.conflicts(err); fmt.Sprint(got) != "[interleaved a.txt]" {
			t.Fatalf("conflicts %v", got)
		}
		e.want(map[string]string{"a.txt": "a2"})
	})
	t.Run("unrecorded", func(t *testing.T) {
		e := newRvEnv(t)
		p := e.prompt("go")
		e.write("", "a.txt", "a1")
		e.hand("big.bin", "big content")
		// A recorded call whose pre-image was too large to store.
		rec := map[string]any{"v": 1, "kind": "record", "id": changes.NewSnapID(e.st.Now()), "seq": 9, "at": mkTime(e.st.Now()),
			"tool": "exec", "call": p.ID, "scope": "workspace", "files": []map[string]any{{"path": "big.bin",
				"before": map[string]any{"skipped": "max_file_bytes", "size": 1 << 30}, "after": fstate.Content([]byte("big content"), fstate.ModeFile)}}}
		if err := e.s.writeChanges(synced, rec); err != nil {
			t.Fatal(err)
		}
		_, err := e.s.Revert(e.ctx, p.ID, RevertFiles)
		if got := e.conflicts(err); fmt.Sprint(got) != "[unrecorded big.bin]" {
			t.Fatalf("conflicts %v", got)
		}
		e.want(map[string]string{"a.txt": "a1", "big.bin": "big content"})
	})
}

// TestFileRevertRefusals: each refusal names its reason and changes
// nothing.
func TestFileRevertRefusals(t *testing.T) {
	type setup func(e *rvEnv, p Item) (undo func())
	for _, c := range []struct {
		name, why string
		set       setup
	}{
		{"dropped", "size budget", func(e *rvEnv, p Item) func() {
			l := must(e.s.Snapshots(e.ctx))(e.t)
			id := l.Snapshots[len(l.Snapshots)-1].ID
			e.s.writeChanges(synced, changes.ListLine{V: 1, Kind: changes.KindDrop, IDs: []string{id}, At: mkTime(e.st.Now()), Why: changes.WhyStoreBudget})
			return nil
		}},
		{"dropped in the workspace journal", "size budget", func(e *rvEnv, p Item) func() {
			l := must(e.s.Snapshots(e.ctx))(e.t)
			line := fmt.Sprintf(`{"v":1,"kind":"drop","session":%q,"ids":[%q],"at":"2026-01-01T00:00:00.000Z","why":"store_budget"}`+"\n", e.s.ID(), l.Snapshots[0].ID)
			if err := vfs.WriteFileAtomic(e.mem, dropsName(e.ws.dir), []byte(line)); err != nil {
				e.t.Fatal(err)
			}
			return nil
		}},
		{"own call running", "still changing files", func(e *rvEnv, p Item) func() {
			end := must(e.s.beginCall(e.ctx))(e.t)
			return end
		}},
		// Seed 000: active subagents and background shell jobs block a
		// revert too; they may be changing the files.
		{"sub-agent task running", "look-around is still running", func(e *rvEnv, p Item) func() {
			task, _ := must2(e.s.StartTask(e.ctx, TaskStart{Description: "look around"}))(e.t)
			return func() { must(0, task.End(e.ctx, TaskCancelled))(e.t) }
		}},
		{"background shell job running", "shell-make is still running", func(e *rvEnv, p Item) func() {
			job := must(e.s.startShellJob(e.ctx, "make", ""))(e.t)
			return func() { must(0, job.End(e.ctx, TaskSettled))(e.t) }
		}},
		{"another session busy", "busy", func(e *rvEnv, p Item) func() {
			other := e.ws.Create(SessionOptions{})
			end := must(other.beginCall(e.ctx))(e.t)
			return func() { end(); other.Close() }
		}},
		{"records start after the boundary", "records start", func(e *rvEnv, p Item) func() {
			e.s.writeChanges(synced, map[string]any{"v": 1, "kind": "start", "at": mkTime(e.st.Now().Add(time.Second)), "why": "enabled"})
			return nil
		}},
		{"records start after a trim", "was trimmed", func(e *rvEnv, p Item) func() {
			e.s.writeChanges(synced, map[string]any{"v": 1, "kind": "start", "at": mkTime(e.st.Now().Add(time.Second)), "why": "trimmed"})
			return nil
		}},
		{"records start after a move", "moved to this directory", func(e *rvEnv, p Item) func() {
			e.s.writeChanges(synced, map[string]any{"v": 1, "kind": "start", "at": mkTime(e.st.Now().Add(time.Second)), "why": "moved"})
			return nil
		}},
		{"recording off", "recording was off", func(e *rvEnv, p Item) func() {
			e.s.writeChanges(synced, map[string]any{"v": 1, "kind": "off", "at": mkTime(e.st.Now())})
			return nil
		}},
		{"earlier revert unfinished", "did not finish", func(e *rvEnv, p Item) func() {
			// A revert whose file could not be written.
			q := e.prompt("more")
			e.write("", "b.txt", "b1")
			e.mem.MkdirAll("b.txt.blocker", 0o755)
			id := changes.NewSnapID(e.st.Now())
			e.s.writeChanges(synced, changes.RevertLine{V: 1, Kind: changes.KindRevert, ID: id, At: mkTime(e.st.Now()), Part: 1, Parts: 1, To: q.ID,
				Files: []changes.RevertFile{{Path: "b.txt", Kept: inlineState("b1"), Put: nil}}})
			e.s.writeChanges(synced, changes.DoneLine{V: 1, Kind: changes.KindReverted, ID: id, At: mkTime(e.st.Now()), Left: []string{"b.txt"}})
			return nil
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newRvEnv(t)
			p := e.prompt("go")
			e.write("", "a.txt", "a1")
			undo := c.set(e, p)
			_, err := e.s.Revert(e.ctx, p.ID, RevertFiles)
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), c.why) {
				t.Fatalf("revert: %v; want refused naming %q", err, c.why)
			}
			if _, err := e.s.PreviewRevert(e.ctx, p.ID, RevertBoth); !errors.Is(err, ErrRefused) {
				t.Fatalf("preview: %v", err)
			}
			e.want(map[string]string{"a.txt": "a1"})
			if undo != nil {
				undo()
				if c.why == "busy" || c.why == "still changing files" || strings.HasSuffix(c.why, "still running") {
					must(e.s.Revert(e.ctx, p.ID, RevertFiles))(t)
					e.want(map[string]string{"a.txt": "<none>"})
				}
			}
		})
	}
}

// TestFileRevertStackAndUnrevert: reverts stack, one unrevert undoes
// them all (files, then the head); a file changed since the revert is a
// conflict and nothing is unreverted; new work ends unrevert and keeps
// the files.
func TestFileRevertStackAndUnrevert(t *testing.T) {
	e := newRvEnv(t)
	e.hand("keep.txt", "mine")
	p1 := e.prompt("one")
	e.write("", "a.txt", "a1")
	p2 := e.prompt("two")
	e.write("", "a.txt", "a2")
	e.write("", "b.txt", "b2")
	p3 := e.prompt("three")
	e.rm("", "a.txt")
	e.write("", "c.txt", "c3")
	head := e.s.Head()
	r := must(e.s.Revert(e.ctx, p3.ID, RevertBoth))(t)
	e.want(map[string]string{"a.txt": "a2", "c.txt": "<none>", "b.txt": "b2"})
	if r.Files.Create != 1 || r.Files.Delete != 1 {
		t.Fatalf("counts %+v", r.Files)
	}
	must(e.s.Revert(e.ctx, p2.ID, RevertBoth))(t)
	e.want(map[string]string{"a.txt": "a1", "b.txt": "<none>", "c.txt": "<none>"})
	// Survives a reopen.
	e.reopen(SessionOptions{})
	if !e.s.canUnrevert() {
		t.Fatal("nothing to unrevert after reopen")
	}
	// A file changed since the revert: nothing is unreverted.
	e.hand("b.txt", "made since")
	_, err := e.s.Unrevert(e.ctx)
	if got := e.conflicts(err); fmt.Sprint(got) != "[changed b.txt]" {
		t.Fatalf("conflicts %v", got)
	}
	e.want(map[string]string{"a.txt": "a1", "b.txt": "made since"})
	if e.s.Head() == head {
		t.Fatal("a refused unrevert moved the head")
	}
	e.mem.Remove("b.txt")
	res := must(e.s.Unrevert(e.ctx))(t)
	e.want(map[string]string{"a.txt": "<none>", "b.txt": "b2", "c.txt": "c3", "keep.txt": "mine"})
	if e.s.Head() != head || res.Files == nil {
		t.Fatalf("unrevert: head %s want %s, files %+v", e.s.Head(), head, res.Files)
	}
	// Revert again, then new work: the files stay, unrevert is over.
	must(e.s.Revert(e.ctx, p1.ID, RevertFiles))(t)
	e.want(map[string]string{"a.txt": "<none>", "b.txt": "<none>", "c.txt": "<none>"})
	e.write("", "d.txt", "new work")
	if _, err := e.s.Unrevert(e.ctx); !errors.Is(err, ErrRefused) {
		t.Fatalf("unrevert after new work: %v", err)
	}
	e.want(map[string]string{"a.txt": "<none>", "b.txt": "<none>", "d.txt": "new work"})
	if rep := must(e.st.Fsck(e.ctx))(t); len(rep.Problems) != 0 {
		t.Fatalf("fsck: %+v", rep.Problems)
	}
}

// TestFileRevertCountsUnrecordedCalls: a call after the boundary that ran
// without a record is counted (its changes stay); one still open with its
// owner gone counts too.
func TestFileRevertCountsUnrecordedCalls(t *testing.T) {
	e := newRvEnv(t)
	p := e.prompt("go")
	e.write("", "a.txt", "a1")
	c := e.call("exec")
	now := mkTime(e.st.Now())
	e.s.writeChanges(synced, map[string]any{"v": 1, "kind": "unrecorded", "id": changes.NewSnapID(now.Time), "at": now, "tool": "exec", "call": c.ID, "why": "max_files"})
	e.s.writeChanges(synced, map[string]any{"v": 1, "kind": "call", "id": changes.NewSnapID(now.Time), "at": now, "tool": "exec", "call": c.ID, "scope": "workspace"})
	pre := must(e.s.PreviewRevert(e.ctx, p.ID, RevertFiles))(t)
	if pre.Files.UnrecordedCalls != 2 || pre.Files.Delete != 1 {
		t.Fatalf("preview %+v", pre.Files)
	}
}

// TestFileRevertNeverTouchesUnrecordedFiles: files no record names — the
// user's edits planted everywhere, before and between the records — are
// byte for byte as they were after every revert and unrevert.
func TestFileRevertNeverTouchesUnrecordedFiles(t *testing.T) {
	e := newRvEnv(t)
	planted := map[string]string{}
	plant := func(round int) {
		for _, p := range []string{"u1.txt", "d/u2.txt", "d/e/u3.bin", ".hidden", "d/a.txt.bak"} {
			c := fmt.Sprintf("unrelated %s round %d\x00\xff", p, round)
			e.hand(p, c)
			planted[p] = c
		}
	}
	check := func(what string) {
		t.Helper()
		for p, c := range planted {
			if got := e.file(p); got != c {
				t.Fatalf("%s: %s holds %q, want %q", what, p, got, c)
			}
		}
	}
	plant(0)
	var prompts []Item
	for i := range 4 {
		prompts = append(prompts, e.prompt(fmt.Sprint("turn ", i)))
		e.write("", "d/a.txt", fmt.Sprint("a", i))
		e.write("", fmt.Sprintf("d/e/n%d.txt", i), "new")
		plant(i + 1)
	}
	for i := 3; i >= 0; i-- {
		must(e.s.Revert(e.ctx, prompts[i].ID, RevertFiles))(t)
		check(fmt.Sprint("revert to turn ", i))
		plant(10 + i)
	}
	must(e.s.Unrevert(e.ctx))(t)
	check("unrevert")
	e.want(map[string]string{"d/a.txt": "a3", "d/e/n0.txt": "new"})
}

// TestFileRevertFork: a fork holds its parent's records, and reverts
// files to points before the fork.
func TestFileRevertFork(t *testing.T) {
	e := newRvEnv(t)
	p1 := e.prompt("one")
	e.write("", "a.txt", "a1")
	c := e.call("write")
	e.write(c.ID, "b.txt", "b1")
	e.result(c)
	a := e.say("done")
	p2 := e.prompt("two")
	e.write("", "a.txt", "a2") // the parent's, after the fork point
	if err := e.s.Commit(e.ctx); err != nil {
		t.Fatal(err)
	}
	fr := must(e.s.Fork(e.ctx, a.ID))(t)
	child := must(e.ws.Open(e.ctx, fr.Session, SessionOptions{}))(t)
	defer child.Close()
	must(child.Append(e.ctx, Item{Type: User, Text: "child"}))(t)
	must(child.ToolWrite(e.ctx, "c.txt", []byte("c1")))(t)
	// To p1, before the fork: the child's change, the parent's later one
	// (after p1 in time) and the parent's before the fork are reverted.
	pre := must(child.PreviewRevert(e.ctx, p1.ID, RevertFiles))(t)
	if pre.Files.Delete != 3 {
		t.Fatalf("child preview %+v", pre.Files)
	}
	must(child.Revert(e.ctx, p1.ID, RevertFiles))(t)
	e.want(map[string]string{"a.txt": "<none>", "b.txt": "<none>", "c.txt": "<none>"})
	must(child.Unrevert(e.ctx))(t)
	e.want(map[string]string{"a.txt": "a2", "b.txt": "b1", "c.txt": "c1"})
	_ = p2
}

// inlineState is content c as an inline F.
func inlineState(c string) *fstate.State {
	f := fstate.Content([]byte(c), fstate.ModeFile)
	f.Data = []byte(c)
	return f
}

// TestFileRevertRecordedCall: a recorded call that is not a file tool
// (RecordCall: the whole workspace walked before and after, on disk) is
// reverted like a file tool's change, the user's edit made before it kept;
// while another session's call runs, a revert is refused as busy.
func TestFileRevertRecordedCall(t *testing.T) {
	e := newSnapEnv(t, "")
	ctx := e.ctx
	put := func(rel, c string) {
		os.MkdirAll(filepath.Dir(e.path(rel)), 0o755)
		if err := os.WriteFile(e.path(rel), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	get := func(rel string) string {
		b, err := os.ReadFile(e.path(rel))
		if err != nil {
			return "<none>"
		}
		return string(b)
	}
	put("src/a.go", "a0")
	s := e.ws.Create(SessionOptions{})
	defer s.Close()
	p := must(s.Append(ctx, Item{Type: User, Text: "go"}))(t)
	put("notes.txt", "mine")
	c := must(s.Append(ctx, Item{Type: ToolCall, Tool: "mcp", Text: "{}"}))(t)
	must(s.RecordCall(ctx, "mcp", ToolOptions{Call: c.ID}, func(context.Context) error {
		put("src/a.go", "a1, longer now")
		put("src/b.go", "b1")
		return nil
	}))(t)
	pre := must(s.PreviewRevert(ctx, p.ID, RevertFiles))(t)
	if f := pre.Files; f.Replace != 1 || f.Delete != 1 {
		t.Fatalf("preview %+v", f)
	}
	other := e.ws.Create(SessionOptions{})
	defer other.Close()
	must(other.Append(ctx, Item{Type: User, Text: "other"}))(t)
	started, release := make(chan struct{}), make(chan struct{})
	done := make(chan error)
	go func() {
		_, err := other.RecordCall(ctx, "mcp", ToolOptions{}, func(context.Context) error {
			close(started)
			<-release
			return nil
		})
		done <- err
	}()
	<-started
	if _, err := s.Revert(ctx, p.ID, RevertFiles); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "busy") {
		t.Fatalf("revert while another session's call runs: %v", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	must(s.Revert(ctx, p.ID, RevertFiles))(t)
	if a, b, n := get("src/a.go"), get("src/b.go"), get("notes.txt"); a != "a0" || b != "<none>" || n != "mine" {
		t.Fatalf("after the revert: a.go %q b.go %q notes.txt %q", a, b, n)
	}
}

// TestFileRevertForkStartsClean: a fork holds the records of its
// parent's pending revert, but not the revert itself: the child has
// nothing to unrevert, the parent still does, and the child's own revert
// reads through the parent's.
func TestFileRevertForkStartsClean(t *testing.T) {
	e := newRvEnv(t)
	p1 := e.prompt("one")
	e.write("", "a.txt", "a1")
	p2 := e.prompt("two")
	e.write("", "a.txt", "a2")
	must(e.s.Revert(e.ctx, p2.ID, RevertFiles))(t)
	e.want(map[string]string{"a.txt": "a1"})
	if err := e.s.Commit(e.ctx); err != nil {
		t.Fatal(err)
	}
	fr := must(e.s.Fork(e.ctx, ""))(t)
	child := must(e.ws.Open(e.ctx, fr.Session, SessionOptions{}))(t)
	defer child.Close()
	if child.canUnrevert() {
		t.Fatal("the child can unrevert its parent's revert")
	}
	if _, err := child.Unrevert(e.ctx); !errors.Is(err, ErrRefused) {
		t.Fatalf("child unrevert: %v", err)
	}
	must(child.Revert(e.ctx, p1.ID, RevertFiles))(t)
	e.want(map[string]string{"a.txt": "<none>"})
	must(child.Unrevert(e.ctx))(t)
	e.want(map[string]string{"a.txt": "a1"})
	if !e.s.canUnrevert() {
		t.Fatal("the parent lost its revert")
	}
}

// TestFsckNamesBadRevertLines: fsck folds file revert's lines too and
// names one that does not fit (a "reverted" of a revert the journal does
// not hold, an unrevert of another stack, a revert with a bad file).
func TestFsckNamesBadRevertLines(t *testing.T) {
	e := newRvEnv(t)
	e.prompt("go")
	e.write("", "a.txt", "a1")
	now := mkTime(e.st.Now())
	for _, l := range []any{
		changes.DoneLine{V: 1, Kind: changes.KindReverted, ID: "zz-00000001", At: now},
		changes.UnrevertLine{V: 1, Kind: changes.KindUnrevert, ID: "zz-00000002", IDs: []string{"zz-00000003"}, At: now},
		map[string]any{"v": 1, "kind": "revert", "id": "zz-00000004", "at": now, "part": 1, "parts": 1,
			"files": []map[string]any{{"path": "../out", "kept": nil, "put": nil}}},
	} {
		if err := e.s.writeChanges(synced, l); err != nil {
			t.Fatal(err)
		}
	}
	e.s.Close()
	rep := must(e.st.Fsck(e.ctx))(t)
	n := 0
	for _, p := range rep.Problems {
		if strings.Contains(fmt.Sprint(p), "file revert line") {
			n++
		}
	}
	if n != 3 {
		t.Fatalf("%d file revert lines named: %+v", n, rep.Problems)
	}
}

// TestChangeStoresCountPendingReverts: the change store listing counts a
// session with a file revert to unrevert, from its changes journal, until
// the unrevert.
func TestChangeStoresCountPendingReverts(t *testing.T) {
	e := newRvEnv(t)
	p := e.prompt("go")
	e.write("", "a.txt", "a1")
	count := func() int {
		cs := must(e.st.ChangeStores(e.ctx))(t)
		n := 0
		for _, c := range cs {
			n += c.PendingReverts
		}
		return n
	}
	if n := count(); n != 0 {
		t.Fatalf("%d pending before any revert", n)
	}
	must(e.s.Revert(e.ctx, p.ID, RevertFiles))(t)
	if n := count(); n != 1 {
		t.Fatalf("%d pending after a revert", n)
	}
	must(e.s.Unrevert(e.ctx))(t)
	if n := count(); n != 0 {
		t.Fatalf("%d pending after the unrevert", n)
	}
}

// TestFileRevertKeepsPermissionBits: a file the revert brings back gets
// the permission bits its record holds (a private executable stays one).
func TestFileRevertKeepsPermissionBits(t *testing.T) {
	e := newRvEnv(t)
	e.hand("run.sh", "#!/bin/sh\n")
	e.hand("secret.txt", "s0")
	e.mem.Chmod("run.sh", 0o750)
	e.mem.Chmod("secret.txt", 0o600)
	p := e.prompt("go")
	e.rm("", "run.sh")
	e.write("", "secret.txt", "s1")
	must(e.s.Revert(e.ctx, p.ID, RevertFiles))(t)
	e.want(map[string]string{"run.sh": "#!/bin/sh\n", "secret.txt": "s0"})
	for p, want := range map[string]os.FileMode{"run.sh": 0o750, "secret.txt": 0o600} {
		fi := must(e.mem.Lstat(p))(t)
		if fi.Mode().Perm() != want {
			t.Fatalf("%s: mode %v, want %v", p, fi.Mode().Perm(), want)
		}
	}
}

// TestFileRevertManyFiles: a revert of more files than the applier puts
// back one at a time (four at once), in nested folders, some created, some
// removed: every file as before, the unrelated ones untouched.
func TestFileRevertManyFiles(t *testing.T) {
	e := newRvEnv(t)
	for i := range 40 {
		e.hand(fmt.Sprintf("d%d/f%02d.txt", i%4, i), fmt.Sprint("v0 ", i))
	}
	e.hand("d0/mine.txt", "mine")
	p := e.prompt("go")
	for i := range 40 {
		switch i % 3 {
		case 0:
			e.write("", fmt.Sprintf("d%d/f%02d.txt", i%4, i), fmt.Sprint("v1 ", i))
		case 1:
			e.rm("", fmt.Sprintf("d%d/f%02d.txt", i%4, i))
		default:
			e.write("", fmt.Sprintf("d%d/new/n%02d.txt", i%4, i), "new")
		}
	}
	res := must(e.s.Revert(e.ctx, p.ID, RevertFiles))(t)
	if f := res.Files; f.Replace != 14 || f.Create != 13 || f.Delete != 13 {
		t.Fatalf("counts %+v", f)
	}
	for i := range 40 {
		want := map[string]string{fmt.Sprintf("d%d/new/n%02d.txt", i%4, i): "<none>"}
		if i%3 != 2 {
			want = map[string]string{fmt.Sprintf("d%d/f%02d.txt", i%4, i): fmt.Sprint("v0 ", i)}
		}
		e.want(want)
	}
	e.want(map[string]string{"d0/mine.txt": "mine"})
}

// TestFileRevertRefusesFileFolderSwap: a call that made a file of a folder
// (or a folder of a file) cannot be reverted across; the revert is refused
// as a conflict that says why (exit 3), not failed on a read of a path
// under a file, and nothing changes.
func TestFileRevertRefusesFileFolderSwap(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct{ name, setup, line, why string }{
		{"folder to file", "mkdir d && echo in > d/x", `rm -r d; F=file; echo $F > d`, "a folder on its path is a file now"},
		{"file to folder", "echo orig > f", `rm f; mkdir f; F=new; echo $F > f/x`, "it is a folder"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newMemEnv(t)
			dir := e.ws.Path()
			setup := exec.Command("sh", "-c", c.setup)
			setup.Dir = dir
			if out, err := setup.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v", out, err)
			}
			s := e.ws.Create(SessionOptions{})
			defer s.Close()
			p := must(s.Append(ctx, Item{Type: User, Text: "swap"}))(t)
			must(s.Exec(ctx, c.line, ExecOptions{}))(t)
			before := dirContents(t, dir)
			for _, run := range []func() error{
				func() error { _, err := s.PreviewRevert(ctx, p.ID, RevertFiles); return err },
				func() error { _, err := s.Revert(ctx, p.ID, RevertBoth); return err },
			} {
				err := run()
				var ce *RevertConflictError
				if !errors.Is(err, ErrRefused) || !errors.As(err, &ce) {
					t.Fatalf("revert across a file/folder swap: %v; want a conflict", err)
				}
				found := false
				for _, cf := range ce.Files.Conflicts {
					found = found || strings.Contains(cf.Detail, c.why)
				}
				if !found {
					t.Fatalf("conflicts %+v; want one saying %q", ce.Files.Conflicts, c.why)
				}
			}
			if after := dirContents(t, dir); !maps.Equal(before, after) {
				t.Fatalf("the refused revert changed files: %v -> %v", before, after)
			}
		})
	}
}

// dirContents maps each regular file under dir to its content.
func dirContents(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	noErr(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = string(b)
		return err
	}))
	return out
}

// TestUnrevertRefusesWhenAFolderBecameAFile: after a revert put a file back
// in a folder, that folder replaced by a file makes the unrevert a
// changed conflict (nothing changes), not a failed read.
func TestUnrevertRefusesWhenAFolderBecameAFile(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	dir := e.ws.Path()
	noErr(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	noErr(t, os.WriteFile(filepath.Join(dir, "sub", "a.txt"), []byte("a\n"), 0o644))
	s := e.ws.Create(SessionOptions{})
	defer s.Close()
	p := must(s.Append(ctx, Item{Type: User, Text: "remove it"}))(t)
	must(s.Exec(ctx, `F=sub/a.txt; rm "$F"`, ExecOptions{}))(t)
	must(s.Revert(ctx, p.ID, RevertFiles))(t)
	noErr(t, os.RemoveAll(filepath.Join(dir, "sub")))
	noErr(t, os.WriteFile(filepath.Join(dir, "sub"), []byte("a file now\n"), 0o644))
	_, err := s.Unrevert(ctx)
	var ce *RevertConflictError
	if !errors.As(err, &ce) || len(ce.Files.Conflicts) != 1 || ce.Files.Conflicts[0].Kind != changes.ConflictChanged {
		t.Fatalf("unrevert with a file where the folder was: %v", err)
	}
	if b := must(os.ReadFile(filepath.Join(dir, "sub")))(t); string(b) != "a file now\n" {
		t.Fatalf("the refused unrevert changed sub: %q", b)
	}
}

// TestFileRevertRefusedWhileRecordingOff: with change recording off
// (--no-snapshots) a file revert is refused, its preview too, before any
// unrecorded call wrote an off line; a conversation revert still works,
// and a file revert made before can still be unreverted.
func TestFileRevertRefusedWhileRecordingOff(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	dir := e.ws.Path()
	noErr(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644))
	s := e.ws.Create(SessionOptions{})
	p := must(s.Append(ctx, Item{Type: User, Text: "change it"}))(t)
	must(s.Exec(ctx, `F=a.txt; echo b > "$F"`, ExecOptions{}))(t)
	must(s.Revert(ctx, p.ID, RevertFiles))(t)
	noErr(t, s.Close())

	s = must(e.ws.Open(ctx, s.ID(), SessionOptions{NoSnapshots: true}))(t)
	defer s.Close()
	for _, mode := range []RevertMode{RevertFiles, RevertBoth} {
		if _, err := s.PreviewRevert(ctx, p.ID, mode); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "recording is off") {
			t.Fatalf("preview with recording off: %v", err)
		}
		if _, err := s.Revert(ctx, p.ID, mode); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "recording is off") {
			t.Fatalf("revert with recording off: %v", err)
		}
	}
	must(s.Unrevert(ctx))(t)
	if b := must(os.ReadFile(filepath.Join(dir, "a.txt")))(t); string(b) != "b\n" {
		t.Fatalf("unrevert with recording off left a.txt %q", b)
	}
	must(s.Revert(ctx, p.ID, RevertConversation))(t)
}
