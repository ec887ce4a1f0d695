package engine

// The conversation graph's cases (fork's table, fork numbers and shared
// payloads, revert boundaries, golden transcripts, compaction, the eager-load
// ceiling); long because each row of the seed's fork and revert tables is a
// case.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// convo builds: u1 -> a1 -> r1 -> c1 (tool_call) -> t1 (result) -> u2 -> c2 (call, no result)
func convo(t *testing.T) (*Workspace, *Session, map[string]Item) {
	t.Helper()
	ctx := context.Background()
	_, ws := testStore(t)
	s := ws.Create(SessionOptions{})
	t.Cleanup(func() { s.Close() })
	m := map[string]Item{}
	add := func(name string, it Item) {
		got, err := s.Append(ctx, it)
		if err != nil {
			t.Fatal(err)
		}
		m[name] = got
	}
	add("u1", Item{Type: User, Text: "first prompt"})
	add("a1", Item{Type: Assistant, Text: "answer one"})
	add("r1", Item{Type: Reasoning, Text: "thinking"})
	add("c1", Item{Type: ToolCall, Tool: "grep", Text: `{"q":"x"}`})
	add("t1", Item{Type: ToolResult, Call: m["c1"].ID, Text: "found x"})
	add("u2", Item{Type: User, Text: "second prompt"})
	add("c2", Item{Type: ToolCall, Tool: "edit", Text: `{"f":"y"}`})
	if err := s.EndTurn(ctx, Turn{Plan: []byte(`"the plan"`), Model: "m1", Trust: &Trust{Map: map[string]string{"a": "b"}}, AllowedCommands: []string{"ls"}}); err != nil {
		t.Fatal(err)
	}
	return ws, s, m
}

func texts(items []Item) string {
	var b []string
	for _, it := range items {
		s := string(it.Type)
		if it.Text != "" {
			s += ":" + it.Text
		}
		if it.Status != "" {
			s += "(" + it.Status + ")"
		}
		b = append(b, s)
	}
	return strings.Join(b, " | ")
}

func TestForkTable(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		at, want, draft string
	}{
		{"u2", `user:first prompt | assistant:answer one | reasoning:thinking | tool_call:{"q":"x"} | tool_result:found x`, "second prompt"},
		{"u1", ``, "first prompt"},
		{"a1", `user:first prompt | assistant:answer one`, ""},
		{"r1", `user:first prompt | assistant:answer one | reasoning:thinking`, ""},
		{"c1", `user:first prompt | assistant:answer one | reasoning:thinking | tool_call:{"q":"x"} | tool_result:found x`, ""},
		{"t1", `user:first prompt | assistant:answer one | reasoning:thinking | tool_call:{"q":"x"} | tool_result:found x`, ""},
		{"c2", `user:first prompt | assistant:answer one | reasoning:thinking | tool_call:{"q":"x"} | tool_result:found x | user:second prompt | tool_call:{"f":"y"} | tool_result:[tool result unavailable: the call did not complete before the fork](unavailable)`, ""},
	}
	for _, c := range cases {
		t.Run(c.at, func(t *testing.T) {
			ws, parent, m := convo(t)
			res, err := parent.Fork(ctx, m[c.at].ID)
			if err != nil {
				t.Fatal(err)
			}
			if res.Draft != c.draft {
				t.Fatalf("draft %q, want %q", res.Draft, c.draft)
			}
			child, err := ws.Open(ctx, res.Session, SessionOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer child.Close()
			if got := texts(child.Transcript()); got != c.want {
				t.Fatalf("child history:\n got %s\nwant %s", got, c.want)
			}
			r := child.Record()
			if r.Title != "first prompt (fork #1)" || r.TitleSource != "user" {
				t.Fatalf("child title %q (%s)", r.Title, r.TitleSource)
			}
			if r.ForkOf == nil || r.ForkOf.Session != parent.ID() || r.ForkOf.Item != m[c.at].ID || r.ForkOf.N != 1 {
				t.Fatalf("fork_of %+v", r.ForkOf)
			}
			if string(r.Plan) != `"the plan"` || r.Model != "m1" {
				t.Fatalf("plan/model not copied: %s %s", r.Plan, r.Model)
			}
			if r.Spend != (Spend{}) || r.Trust != nil || len(r.AllowedCommands) != 0 {
				t.Fatalf("usage or permissions not clean: %+v %+v %v", r.Spend, r.Trust, r.AllowedCommands)
			}
			if child.ID() == parent.ID() {
				t.Fatal("the child has the parent's id")
			}
		})
	}
}

func TestForkNumbersPerParentAndOwnedParent(t *testing.T) {
	ctx := context.Background()
	ws, parent, m := convo(t)
	// The parent is open (owned) here: forking still works.
	for n := 1; n <= 3; n++ {
		res, err := parent.Fork(ctx, m["a1"].ID)
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("first prompt (fork #%d)", n); res.Title != want || res.ForkOf.N != n {
			t.Fatalf("fork %d titled %q n=%d", n, res.Title, res.ForkOf.N)
		}
	}
	// A fork of a fork counts its own parent.
	l, _, _ := ws.List(ctx)
	var child string
	for _, e := range l {
		if e.ForkOf == parent.ID() {
			child = e.ID
		}
	}
	res, err := ws.Fork(ctx, child, "")
	if err != nil {
		t.Fatal(err)
	}
	if res.ForkOf.N != 1 || !strings.HasSuffix(res.Title, "(fork #1)") {
		t.Fatalf("grandchild %q n=%d", res.Title, res.ForkOf.N)
	}
}

func TestForkSharesPayloadObjects(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	s := ws.Create(SessionOptions{})
	defer s.Close()
	big := strings.Repeat("payload line\n", 4000) // > 16 KiB: stored as an object
	s.Append(ctx, Item{Type: User, Text: "go"})
	a, _ := s.Append(ctx, Item{Type: Assistant, Text: big})
	before := countFiles(t, filepath.Join(ws.Folder(), "objects"))
	res, err := s.Fork(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if after := countFiles(t, filepath.Join(ws.Folder(), "objects")); after != before || before != 1 {
		t.Fatalf("objects before %d after %d: a fork copied file data", before, after)
	}
	v, err := ws.Read(ctx, res.Session)
	if err != nil {
		t.Fatal(err)
	}
	if tr := v.Transcript(); len(tr) != 2 || tr[1].Text != big {
		t.Fatal("the child does not read the shared payload")
	}
}

func countFiles(t *testing.T, dir string) int {
	n := 0
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n++
		}
		return nil
	})
	return n
}

func TestRevertBoundariesAndUnrevert(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		at, head, draft string
	}{
		{"u2", "t1", "second prompt"}, // a user prompt lands before it
		{"u1", "", "first prompt"},
		{"a1", "a1", ""}, // other items are inclusive
		{"r1", "r1", ""},
		{"c1", "t1", ""}, // a completed call keeps its result, as a fork does
		{"t1", "t1", ""},
	} {
		t.Run(c.at, func(t *testing.T) {
			_, s, m := convo(t)
			orig := s.Head()
			res, err := s.Revert(ctx, m[c.at].ID, RevertConversation)
			if err != nil {
				t.Fatal(err)
			}
			want := ""
			if c.head != "" {
				want = m[c.head].ID
			}
			if s.Head() != want || res.Draft != c.draft {
				t.Fatalf("head %s draft %q; want %s %q", s.Head(), res.Draft, want, c.draft)
			}
			if len(s.AllItems()) != 7 {
				t.Fatal("a revert deleted items")
			}
			if _, err := s.Unrevert(ctx); err != nil {
				t.Fatal(err)
			}
			if s.Head() != orig {
				t.Fatalf("unrevert put the head at %s, want %s", s.Head(), orig)
			}
		})
	}
}

func TestRevertsStackAndUnrevertRefusedAfterNewWork(t *testing.T) {
	ctx := context.Background()
	ws, s, m := convo(t)
	orig := s.Head()
	s.Revert(ctx, m["u2"].ID, RevertConversation)
	s.Revert(ctx, m["a1"].ID, RevertConversation)
	// Reverts stack: unrevert undoes all of them, and survives a reopen.
	id := s.ID()
	s.Close()
	s2, err := ws.Open(ctx, id, SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if !s2.canUnrevert() {
		t.Fatal("the revert stack was not rebuilt from the journal")
	}
	if _, err := s2.Unrevert(ctx); err != nil || s2.Head() != orig {
		t.Fatalf("unrevert: %v head %s want %s", err, s2.Head(), orig)
	}
	// New work after a revert commits a new branch: no unrevert.
	s2.Revert(ctx, m["u2"].ID, RevertConversation)
	if _, err := s2.Append(ctx, Item{Type: User, Text: "a different second prompt"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s2.Unrevert(ctx); !errors.Is(err, ErrRefused) {
		t.Fatalf("unrevert after new work: %v", err)
	}
	if _, err := s2.Unrevert(ctx); !errors.Is(err, ErrRefused) {
		t.Fatal("unrevert with nothing to unrevert was not refused")
	}
	// The abandoned branch stays readable.
	if n := len(s2.AllItems()); n != 8 {
		t.Fatalf("%d items in all branches, want 8", n)
	}
	// A session whose tools changed no file has nothing for a file revert
	// to put back: it changes nothing, the head included.
	head := s2.Head()
	if res, err := s2.Revert(ctx, m["a1"].ID, RevertFiles); err != nil || len(res.Files.Files) != 0 || s2.Head() != head {
		t.Fatalf("file revert with no records: %v %+v", err, res)
	}
}

func TestTranscriptGoldenBranched(t *testing.T) {
	ctx := context.Background()
	_, s, m := convo(t)
	s.Revert(ctx, m["u2"].ID, RevertConversation)
	s.Append(ctx, Item{Type: User, Text: "another way"})
	s.Append(ctx, Item{Type: Assistant, Text: "taken"})
	golden(t, "transcript_branched_head.golden", render(s.Transcript()))
	golden(t, "transcript_branched_all.golden", render(s.AllItems()))
}

// render prints items with stable names instead of random ids.
func render(items []Item) string {
	names := map[string]string{}
	for i, it := range items {
		names[it.ID] = fmt.Sprintf("#%d", i+1)
	}
	var b strings.Builder
	for _, it := range items {
		parent := names[it.Parent]
		if it.Parent == "" {
			parent = "-"
		} else if parent == "" {
			parent = "?"
		}
		fmt.Fprintf(&b, "%s parent=%s %s %q\n", names[it.ID], parent, it.Type, it.Text)
	}
	return b.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Fatalf("%s differs:\n--- got\n%s--- want\n%s", name, got, want)
	}
}

func TestCompaction(t *testing.T) {
	ctx := context.Background()
	_, s, m := convo(t)
	s.Append(ctx, Item{Type: ToolResult, Call: m["c2"].ID, Text: "edited"})
	s.Append(ctx, Item{Type: User, Text: "third prompt"})
	// Up to c1: the cut is moved past c1's result so a call keeps its results.
	c, err := s.Compact(ctx, "summary of the start", m["c1"].ID)
	if err != nil {
		t.Fatal(err)
	}
	if c.Type != Compaction || c.Replaces[0] != m["u1"].ID || c.Replaces[1] != m["t1"].ID {
		t.Fatalf("compaction replaces %v", c.Replaces)
	}
	view := texts(s.requestView())
	want := `compaction:summary of the start | user:second prompt | tool_call:{"f":"y"} | tool_result:edited | user:third prompt`
	if view != want {
		t.Fatalf("request view: %s", view)
	}
	if n := len(s.Transcript()); n != 10 {
		t.Fatalf("the transcript lost items: %d", n)
	}
	arch, err := s.archive(c.ID)
	if err != nil || len(arch) != 5 || arch[4].Text != "found x" {
		t.Fatalf("archive: %v %s", err, texts(arch))
	}
	// Default: everything before the newest prompt.
	c2, err := s.Compact(ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c2.Text, "second prompt") {
		t.Fatalf("plain summary %q", c2.Text)
	}
}

func TestEagerLoadCeiling(t *testing.T) {
	ctx := context.Background()
	s, ws := testStore(t)
	var notices []string
	sess := ws.Create(SessionOptions{Notice: func(m string) { notices = append(notices, m) }})
	os.WriteFile(filepath.Join(s.Home(), "config.json"), []byte(`{"storage":{"max_eager_load_mb":1}}`), 0o600)
	chunk := strings.Repeat("z", 300<<10)
	for range 4 { // 1.2 MB of payloads
		if _, err := sess.Append(ctx, Item{Type: Assistant, Text: chunk}); err != nil {
			t.Fatal(err)
		}
	}
	sess.Close()
	if len(notices) != 1 || !strings.Contains(notices[0], "80%") {
		t.Fatalf("notices at the ceiling: %q", notices)
	}
	_, err := ws.Open(ctx, sess.ID(), SessionOptions{})
	var lim *LoadLimitError
	if !errors.As(err, &lim) || !errors.Is(err, ErrRefused) {
		t.Fatalf("open over the ceiling: %v", err)
	}
	for _, way := range []string{"cairn transcript " + sess.ID(), "cairn fork " + sess.ID() + " --at ITEM", "CAIRN_MAX_EAGER_LOAD_MB=2", "max_eager_load_mb"} {
		if !strings.Contains(err.Error(), way) {
			t.Fatalf("the refusal does not name %q: %v", way, err)
		}
	}
	// It names only ways out that exist.
	if strings.Contains(err.Error()+notices[0], "trim") {
		t.Fatalf("the refusal or the warning names trim: %v; %s", err, notices[0])
	}
	// The library reads no environment: only the option raises the ceiling.
	t.Setenv("CAIRN_MAX_EAGER_LOAD_MB", "2")
	if _, err := ws.Open(ctx, sess.ID(), SessionOptions{}); !errors.As(err, &lim) {
		t.Fatalf("open with the ceiling raised in the environment only: %v", err)
	}
	raised, err := Open(s.Home(), WithMaxEagerLoadMB(2))
	if err != nil {
		t.Fatal(err)
	}
	defer raised.Close()
	rws, err := raised.Workspace(ws.Path())
	if err != nil {
		t.Fatal(err)
	}
	re, err := rws.Open(ctx, sess.ID(), SessionOptions{})
	if err != nil {
		t.Fatalf("open with the ceiling raised: %v", err)
	}
	defer re.Close()
	if len(re.Transcript()) != 4 {
		t.Fatal("not every item loaded")
	}
}

func TestForkCopiesReachableOutputs(t *testing.T) {
	ctx := context.Background()
	ws, s, _ := convo(t)
	on, err := s.PutOutput(ctx, "grep", strings.NewReader("on the path"))
	if err != nil {
		t.Fatal(err)
	}
	off, err := s.PutOutput(ctx, "grep", strings.NewReader("not on the path"))
	if err != nil {
		t.Fatal(err)
	}
	kept, _ := s.Append(ctx, Item{Type: ToolResult, Text: "see output", Outputs: []string{on}})
	s.Revert(ctx, kept.ID, RevertConversation)
	s.Append(ctx, Item{Type: ToolResult, Text: "other branch", Outputs: []string{off}})
	res, err := s.Fork(ctx, kept.ID)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := ws.ReadOutput(ctx, res.Session, on)
	if err != nil {
		t.Fatalf("the fork cannot read the output on its path: %v", err)
	}
	rc.Close()
	if _, err := ws.ReadOutput(ctx, res.Session, off); !errors.Is(err, ErrNotFound) {
		t.Fatalf("an output off the fork's path was copied: %v", err)
	}
}

// A fork copies the outputs its sub-agent histories refer to, as it copies
// those of its own path: the child's copy of the task's transcript names
// them, and they must read there.
func TestForkCopiesOutputsOfReachableTasks(t *testing.T) {
	ctx := context.Background()
	ws, s, _ := convo(t)
	task, call := must2(s.StartTask(ctx, TaskStart{Description: "look around"}))(t)
	out := must(s.PutOutput(ctx, "file-grep", strings.NewReader("what the sub-agent found")))(t)
	must(task.Append(ctx, Item{Type: User, Text: "look around"}))(t)
	must(task.Append(ctx, Item{Type: Assistant, Text: "found it", Outputs: []string{out}}))(t)
	must(s.Append(ctx, Item{Type: ToolResult, Call: call.ID, Text: "done"}))(t)
	res := must(s.Fork(ctx, ""))(t)
	rc, err := ws.ReadOutput(ctx, res.Session, out)
	if err != nil {
		t.Fatalf("the fork cannot read the output its sub-agent's history names: %v", err)
	}
	rc.Close()
}

// An output the parent no longer holds (a trim dropped its retained
// outputs) does not stop a fork: the child refers to it as the parent does.
func TestForkAfterOutputsDropped(t *testing.T) {
	ctx := context.Background()
	ws, s, _ := convo(t)
	out := must(s.PutOutput(ctx, "grep", strings.NewReader("gone soon")))(t)
	must(s.Append(ctx, Item{Type: ToolResult, Text: "see output", Outputs: []string{out}}))(t)
	must(0, s.Commit(ctx))(t)
	must(0, ws.deleteOutputs(ctx, s.ID()))(t)
	res, err := s.Fork(ctx, "")
	if err != nil {
		t.Fatalf("fork of a session whose outputs were dropped: %v", err)
	}
	if _, err := ws.ReadOutput(ctx, res.Session, out); !errors.Is(err, ErrNotFound) {
		t.Fatalf("the dropped output reads in the fork: %v", err)
	}
}

// An item naming something that is not an output id is refused: a fork
// copies the outputs an item names, and could not copy that one.
func TestAppendRefusesBadOutputID(t *testing.T) {
	ctx := context.Background()
	_, s, _ := convo(t)
	for _, bad := range []string{"", "../x", "Output-X", "output x"} {
		if _, err := s.Append(ctx, Item{Type: ToolResult, Text: "r", Outputs: []string{bad}}); !errors.Is(err, ErrBadInput) {
			t.Fatalf("output %q: %v", bad, err)
		}
	}
	must(s.Fork(ctx, ""))(t)
}
