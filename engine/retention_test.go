package engine

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/fstate"
	"cairn/engine/internal/scope"
	"cairn/engine/retention"
	"cairn/internal/vfs"
	"cairn/objects"
)

// closedSession makes a session with one prompt at the env's clock and
// closes it, then moves the clock on by gap.
func closedSession(t *testing.T, e *memEnv, gap time.Duration) string {
	t.Helper()
	s := e.ws.Create(SessionOptions{})
	if _, err := s.Append(context.Background(), Item{Type: User, Text: "hello"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	e.advance(gap)
	return s.ID()
}

func sessIDs(l []retention.Entry) []string {
	var out []string
	for _, e := range l {
		out = append(out, e.Session)
	}
	return out
}

func listed(t *testing.T, ws *Workspace) []string {
	t.Helper()
	l, _, err := ws.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range l {
		out = append(out, s.ID)
	}
	return out
}

// TestForgetDryRunEqualsRun: the plan a dry run shows is the plan the run
// carries out, and the run removes exactly its removals.
func TestForgetDryRunEqualsRun(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	var made []string
	for range 5 {
		made = append(made, closedSession(t, e, 25*time.Hour))
	}
	opt := RetentionOptions{Action: ActionForget, Policy: retention.Policy{Last: 2}, Location: time.UTC}
	dry := must(e.store.PlanRetention(ctx, opt))(t)
	run := must(e.store.RunRetention(ctx, opt))(t)
	if !reflect.DeepEqual(dry, run) {
		t.Fatalf("dry run %+v\nreal run %+v", dry, run)
	}
	if len(run.Groups) != 1 || !slices.Equal(sessIDs(run.Groups[0].Keep), []string{made[4], made[3]}) ||
		!slices.Equal(sessIDs(run.Groups[0].Remove), []string{made[2], made[1], made[0]}) {
		t.Fatalf("plan %+v", run.Groups)
	}
	if got := listed(t, e.ws); !slices.Equal(got, []string{made[4], made[3]}) {
		t.Fatalf("listed after forget: %v", got)
	}
	// A second run has nothing left to do.
	again := must(e.store.RunRetention(ctx, opt))(t)
	if again.Removals() != 0 {
		t.Fatalf("second run removes %v", again.Groups[0].Remove)
	}
}

// TestEmptyPolicyRemovesNothing: with no rule every session is kept.
func TestEmptyPolicyRemovesNothing(t *testing.T) {
	e := newMemEnv(t)
	closedSession(t, e, time.Hour)
	for _, a := range []string{ActionTrim, ActionForget} {
		p := must(e.store.RunRetention(context.Background(), RetentionOptions{Action: a}))(t)
		if p.Removals() != 0 || p.Groups[0].Keep[0].Reasons[0] != "no policy" {
			t.Fatalf("%s with no policy: %+v", a, p.Groups)
		}
	}
}

// TestAlwaysKept: pinned, open, pending revert and future-dated sessions
// survive a policy that keeps only the newest, each with its reason.
func TestAlwaysKept(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	pinned := closedSession(t, e, time.Hour)
	must(0, e.ws.SetPinned(ctx, pinned, true))(t)
	revert := revertedSession(t, e)
	e.advance(time.Hour)
	plain := closedSession(t, e, time.Hour)
	open := e.ws.Create(SessionOptions{})
	must(open.Append(ctx, Item{Type: User, Text: "still here"}))(t)
	must(0, open.Commit(ctx))(t)
	defer open.Close()
	e.advance(48 * time.Hour)
	future := closedSession(t, e, -48*time.Hour) // dated two days ahead of the clock
	e.advance(time.Hour)
	newest := closedSession(t, e, time.Hour)

	opt := RetentionOptions{Action: ActionForget, Policy: retention.Policy{Last: 1}, Location: time.UTC}
	p := must(e.store.RunRetention(ctx, opt))(t)
	want := map[string]string{pinned: "pinned", revert: "pending revert", open.ID(): "open", future: "future-dated", newest: "last"}
	for _, k := range p.Groups[0].Keep {
		if w, ok := want[k.Session]; !ok || k.Reasons[0] != w {
			t.Errorf("%s kept for %q, want %q", k.Session, k.Reasons, w)
		}
		delete(want, k.Session)
	}
	if len(want) > 0 || !slices.Equal(sessIDs(p.Groups[0].Remove), []string{plain}) {
		t.Fatalf("not kept: %v; removed %v", want, sessIDs(p.Groups[0].Remove))
	}
	// Named sessions: a pinned one is refused, an open one is kept.
	_, err := e.store.RunRetention(ctx, RetentionOptions{Action: ActionTrim, Sessions: []string{pinned}})
	if !errors.Is(err, ErrRefused) {
		t.Fatalf("trim of a pinned session: %v", err)
	}
	p = must(e.store.RunRetention(ctx, RetentionOptions{Action: ActionTrim, Sessions: []string{open.ID()}}))(t)
	if p.Removals() != 0 || p.Groups[0].Keep[0].Reasons[0] != "open" {
		t.Fatalf("trim of an open session: %+v", p.Groups)
	}
	must(0, e.ws.SetPinned(ctx, pinned, false))(t)
	if rec := must(readRecord(e.store.fsys, e.ws.dir, pinned))(t); rec.Pinned {
		t.Fatal("unpin left the record pinned")
	}
}

// bigContent is file content over the inline limit, so its pre-image is
// an object.
func bigContent(tag string) []byte { return []byte(strings.Repeat(tag+" line of text\n", 3000)) }

// TestTrimDropsArtifacts: a trim drops the change records, the outputs and
// the shell output tails, keeps the conversation, and the session is full
// again once it runs.
func TestTrimDropsArtifacts(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	s := e.ws.Create(SessionOptions{})
	must(s.Append(ctx, Item{Type: User, Text: "write it"}))(t)
	must(s.ToolWrite(ctx, "a.txt", bigContent("a")))(t)
	must(s.ToolWrite(ctx, "a.txt", []byte("small")))(t)
	out := must(s.PutOutput(ctx, "grep", strings.NewReader("found it")))(t)
	run := must(s.ShellStart(ctx, "make"))(t)
	must(0, run.Finish(ctx, 0, []byte("built"), []byte("warning")))(t)
	must(0, s.Close())(t)
	id := s.ID()

	plan := must(e.store.RunRetention(ctx, RetentionOptions{Action: ActionTrim, Sessions: []string{id}}))(t)
	if plan.Removals() != 1 || plan.Groups[0].Remove[0].Bytes == 0 {
		t.Fatalf("plan %+v", plan.Groups)
	}
	rec := must(readRecord(e.store.fsys, e.ws.dir, id))(t)
	if rec.Tier != "transcript" {
		t.Fatalf("tier %q", rec.Tier)
	}
	if _, err := e.ws.ReadOutput(ctx, id, out); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "trimmed") || strings.Contains(err.Error(), "no such session") {
		t.Fatalf("output after trim: %v", err)
	}
	b := must(vfs.ReadFile(e.store.fsys, changesName(e.ws.dir, id)))(t)
	if !strings.Contains(string(b), `"kind":"start"`) || strings.Count(string(b), "\n") != 1 {
		t.Fatalf("changes journal after trim: %s", b)
	}
	hist := must(e.ws.ShellHistory(ctx, id))(t)
	if len(hist) != 1 || hist[0].Stdout != "" || hist[0].Stderr != "" || hist[0].Exit != 0 || hist[0].Status != ShellFinished {
		t.Fatalf("shell history after trim: %+v", hist)
	}
	// A second trim changes nothing.
	before := must(vfs.ReadFile(e.store.fsys, itemsName(e.ws.dir, id)))(t)
	must(e.store.RunRetention(ctx, RetentionOptions{Action: ActionTrim, Sessions: []string{id}}))(t)
	if after := must(vfs.ReadFile(e.store.fsys, itemsName(e.ws.dir, id)))(t); string(after) != string(before) {
		t.Fatal("a second trim wrote to the items journal")
	}
	// A file tool with no item of its own leaves it transcript, but a
	// policy trim takes its new records again.
	w := must(e.ws.Open(ctx, id, SessionOptions{}))(t)
	must(w.ToolWrite(ctx, "c.txt", []byte("c")))(t)
	must(0, w.Close())(t)
	pol := RetentionOptions{Action: ActionTrim, Policy: retention.Policy{Within: retention.Duration{Hours: 1}}}
	e.advance(24 * time.Hour)
	closedSession(t, e, time.Hour)
	if p := must(e.store.RunRetention(ctx, pol))(t); !slices.Equal(sessIDs(p.Groups[0].Remove), []string{id}) {
		t.Fatalf("policy trim of new records: %+v", p.Groups)
	}
	if p := must(e.store.RunRetention(ctx, pol))(t); p.Removals() != 0 {
		t.Fatalf("a second policy trim: %+v", p.Groups)
	}
	// It resumes, its conversation whole; new work makes it full.
	re := must(e.ws.Open(ctx, id, SessionOptions{}))(t)
	if tr := re.Transcript(); len(tr) != 1 || tr[0].Text != "write it" {
		t.Fatalf("transcript after trim: %+v", tr)
	}
	must(re.Append(ctx, Item{Type: Assistant, Text: "again"}))(t)
	must(re.ToolWrite(ctx, "b.txt", []byte("b")))(t)
	must(0, re.Close())(t)
	if rec := must(readRecord(e.store.fsys, e.ws.dir, id))(t); rec.Tier != "full" {
		t.Fatalf("tier after new work %q", rec.Tier)
	}
}

// objectCount counts the workspace store's objects.
func objectCount(t *testing.T, ws *Workspace) int {
	n := 0
	must(0, ws.objects().Walk(context.Background(), func(objects.Info) error { n++; return nil }))(t)
	return n
}

// TestTrimForkSharedRecords: a fork holds its parent's change records, so
// trimming the parent leaves the objects they name for the fork (prune
// keeps them), and trimming the fork too lets prune remove them.
func TestTrimForkSharedRecords(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	p := e.ws.Create(SessionOptions{})
	must(p.Append(ctx, Item{Type: User, Text: "write it"}))(t)
	must(p.ToolWrite(ctx, "a.txt", bigContent("first")))(t)
	must(p.ToolWrite(ctx, "a.txt", bigContent("second")))(t)
	last := must(p.Append(ctx, Item{Type: Assistant, Text: "done"}))(t)
	must(0, p.Close())(t)
	fork := must(e.ws.Fork(ctx, p.ID(), last.ID))(t)
	objs := objectCount(t, e.ws)
	if objs == 0 {
		t.Fatal("no objects to share")
	}

	must(e.store.RunRetention(ctx, RetentionOptions{Action: ActionTrim, Sessions: []string{p.ID()}}))(t)
	e.advance(8 * 24 * time.Hour)
	rep := must(e.store.Prune(ctx, PruneOptions{}))(t)
	if rep.Objects != 0 || objectCount(t, e.ws) != objs {
		t.Fatalf("prune after trimming the parent removed %d objects (of %d)", rep.Objects, objs)
	}
	// The fork's undo still has its pre-image.
	child := must(e.ws.Open(ctx, fork.Session, SessionOptions{}))(t)
	must(child.Undo(ctx))(t)
	if b, _ := os.ReadFile(filepath.Join(e.ws.Path(), "a.txt")); string(b) != string(bigContent("first")) {
		t.Fatalf("fork undo after parent trim put back %d bytes", len(b))
	}
	must(0, child.Close())(t)

	must(e.store.RunRetention(ctx, RetentionOptions{Action: ActionTrim, Sessions: []string{fork.Session}}))(t)
	rep = must(e.store.Prune(ctx, PruneOptions{}))(t)
	if rep.Objects == 0 {
		t.Fatalf("prune after trimming both removed nothing (%d objects)", objectCount(t, e.ws))
	}
}

// TestTrashAndRestore: a forgotten session goes to the trash with its
// outputs, comes back whole, and is purged by a prune seven days on;
// the usage ledger still answers after every session is gone.
func TestTrashAndRestore(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	s := e.ws.Create(SessionOptions{})
	must(s.Append(ctx, Item{Type: User, Text: "spend"}))(t)
	out := must(s.PutOutput(ctx, "grep", strings.NewReader("found it")))(t)
	must(0, s.EndTurn(ctx, Turn{Model: "m1", Spend: Spend{InputTokens: 10, OutputTokens: 5, CostUSD: 0.5}}))(t)
	must(0, s.Close())(t)
	id := s.ID()
	usage := must(e.store.Usage(ctx))(t)

	must(e.store.RunRetention(ctx, RetentionOptions{Action: ActionForget, Sessions: []string{id}}))(t)
	if len(listed(t, e.ws)) != 0 {
		t.Fatal("forgotten session still listed")
	}
	if tr := must(e.store.TrashList(ctx))(t); len(tr) != 1 || tr[0].Session != id {
		t.Fatalf("trash %+v", tr)
	}
	must(e.store.Restore(ctx, id[:8]))(t)
	if got := listed(t, e.ws); !slices.Equal(got, []string{id}) {
		t.Fatalf("listed after restore: %v", got)
	}
	if readOutput(t, e.ws, id, out) != "found it" {
		t.Fatal("output lost by forget and restore")
	}
	if tr := must(e.store.TrashList(ctx))(t); len(tr) != 0 {
		t.Fatalf("trash after restore %+v", tr)
	}

	must(e.store.RunRetention(ctx, RetentionOptions{Action: ActionForget, Sessions: []string{id}}))(t)
	e.advance(6 * 24 * time.Hour)
	if rep := must(e.store.Prune(ctx, PruneOptions{}))(t); rep.Trash != 0 {
		t.Fatal("purged before seven days")
	}
	e.advance(2 * 24 * time.Hour)
	rep := must(e.store.Prune(ctx, PruneOptions{}))(t)
	if rep.Trash != 1 {
		t.Fatalf("prune %+v", rep)
	}
	if _, err := e.store.Restore(ctx, id); !errors.Is(err, ErrNotFound) {
		t.Fatalf("restore after purge: %v", err)
	}
	if got := must(e.store.Usage(ctx))(t); !reflect.DeepEqual(got, usage) || len(got) == 0 {
		t.Fatalf("usage after every session is gone: %+v, was %+v", got, usage)
	}
	if ents, _ := e.store.fsys.ReadDir(path.Join(e.ws.dir, "sessions")); len(ents) != 0 {
		var names []string
		for _, x := range ents {
			names = append(names, x.Name())
		}
		t.Fatalf("left in sessions/ after purge and prune: %v", names)
	}
}

// TestGroupBy: per directory, each workspace keeps its own newest; with
// group_by "none" the policy runs over every session at once.
func TestGroupBy(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	a1 := closedSession(t, e, time.Hour)
	a2 := closedSession(t, e, time.Hour)
	other, err := e.store.Workspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b := other.Create(SessionOptions{})
	must(b.Append(ctx, Item{Type: User, Text: "elsewhere"}))(t)
	must(0, b.Close())(t)
	e.advance(time.Hour)
	a3 := closedSession(t, e, time.Hour) // the newest of all

	removed := func(g string) []string {
		p := must(e.store.PlanRetention(ctx, RetentionOptions{Action: ActionForget, Policy: retention.Policy{Last: 1}, GroupBy: g}))(t)
		var out []string
		for _, gr := range p.Groups {
			out = append(out, sessIDs(gr.Remove)...)
		}
		slices.Sort(out)
		return out
	}
	want := []string{a1, a2}
	slices.Sort(want)
	if got := removed(retention.GroupByDirectory); !slices.Equal(got, want) {
		t.Errorf("by directory: removed %v, want %v", got, want)
	}
	want = []string{a1, a2, b.ID()}
	slices.Sort(want)
	if got := removed(retention.GroupByNone); !slices.Equal(got, want) {
		t.Errorf("none: removed %v, want %v (a3 %s)", got, want, a3)
	}
}

// revertedSession makes a closed session whose file revert is pending
// (an unrevert would undo it).
func revertedSession(t *testing.T, e *memEnv) string {
	t.Helper()
	ctx := context.Background()
	s := e.ws.Create(SessionOptions{})
	p := must(s.Append(ctx, Item{Type: User, Text: "write it"}))(t)
	must(s.ToolWrite(ctx, "r.txt", []byte("r")))(t)
	must(s.Append(ctx, Item{Type: Assistant, Text: "done"}))(t)
	must(s.Revert(ctx, p.ID, RevertFiles))(t)
	must(0, s.Close())(t)
	return s.ID()
}

// TestRevertPendingUntilUnrevert: a session with a file revert is kept
// until it is unreverted.
func TestRevertPendingUntilUnrevert(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	id := revertedSession(t, e)
	if !e.ws.fileRevertPending(id) {
		t.Fatal("a file revert is not pending")
	}
	s := must(e.ws.Open(ctx, id, SessionOptions{}))(t)
	must(s.Unrevert(ctx))(t)
	must(0, s.Close())(t)
	if e.ws.fileRevertPending(id) {
		t.Fatal("an unreverted file revert is still pending")
	}
}

// TestPruneKeepsTaskTranscriptObjects: the payloads of a sub-agent's
// transcript (tasks/<id>/) are objects no journal of the sessions folder
// names; prune keeps them while the session is kept, trimmed or in the
// trash.
func TestPruneKeepsTaskTranscriptObjects(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	s := e.ws.Create(SessionOptions{})
	must(s.Append(ctx, Item{Type: User, Text: "ask a sub-agent"}))(t)
	task, _ := must2(s.StartTask(ctx, TaskStart{Description: "look around"}))(t)
	must(task.Append(ctx, Item{Type: Assistant, Text: string(bigContent("the sub-agent's long answer"))}))(t)
	must(0, task.End(ctx, TaskSettled))(t)
	must(0, s.Close())(t)
	objs := objectCount(t, e.ws)
	if objs == 0 {
		t.Fatal("the transcript's payload made no object")
	}
	e.advance(8 * 24 * time.Hour)
	if rep := must(e.store.Prune(ctx, PruneOptions{}))(t); rep.Objects != 0 || objectCount(t, e.ws) != objs {
		t.Fatalf("prune removed %d of the %d objects a sub-agent transcript names", rep.Objects, objs)
	}
	must(e.store.RunRetention(ctx, RetentionOptions{Action: ActionTrim, Sessions: []string{s.ID()}}))(t)
	if rep := must(e.store.Prune(ctx, PruneOptions{}))(t); rep.Objects != 0 {
		t.Fatalf("prune after a trim removed %d objects of the kept transcript", rep.Objects)
	}
	must(e.store.RunRetention(ctx, RetentionOptions{Action: ActionForget, Sessions: []string{s.ID()}}))(t)
	if rep := must(e.store.Prune(ctx, PruneOptions{}))(t); rep.Objects != 0 || objectCount(t, e.ws) != objs {
		t.Fatalf("prune with the session in the trash removed %d objects of its transcript", rep.Objects)
	}
}

// TestPruneKeepsObjectStoredAgain: an object nothing names, stored more
// than seven days ago, that a new Put of the same content finds (a line is
// about to name it) is young again: prune keeps it.
func TestPruneKeepsObjectStoredAgain(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	objs := e.ws.objects()
	content := bigContent("stored long ago, needed again")
	first := must(objs.PutBytes(ctx, content))(t)
	e.advance(8 * 24 * time.Hour)
	again := must(objs.PutBytes(ctx, content))(t)
	if !again.Existed {
		t.Fatal("the second Put stored the content anew")
	}
	must(e.store.Prune(ctx, PruneOptions{}))(t)
	if _, err := objs.Stat(first.ID); err != nil {
		t.Fatalf("prune removed the object a Put had just found: %v", err)
	}
}

// TestRunSkipsSessionUsedSincePlan: a session the plan removes that is
// opened, written and closed again while the run works on the sessions
// before it is skipped, not trimmed on the activity it had.
func TestRunSkipsSessionUsedSincePlan(t *testing.T) {
	ctx := context.Background()
	for _, action := range []string{ActionTrim, ActionForget} {
		t.Run(action, func(t *testing.T) {
			e := newMemEnv(t)
			oldest := closedSession(t, e, time.Hour)
			closedSession(t, e, time.Hour)
			newest := closedSession(t, e, time.Hour)
			used := false
			opt := RetentionOptions{Action: action, Policy: retention.Policy{Last: 1}, Location: time.UTC,
				Progress: func(done, total int) {
					if done != 1 || used {
						return
					}
					// Between the first removal and the oldest's turn, a user
					// resumes the oldest, adds a prompt and leaves.
					used = true
					e.advance(time.Hour)
					s := must(e.ws.Open(ctx, oldest, SessionOptions{}))(t)
					must(s.Append(ctx, Item{Type: User, Text: "back to it"}))(t)
					must(0, s.Close())(t)
				}}
			p := must(e.store.RunRetention(ctx, opt))(t)
			if !used || !slices.Equal(sessIDs(p.Skipped), []string{oldest}) {
				t.Fatalf("skipped %v, want the oldest %s", sessIDs(p.Skipped), oldest)
			}
			rec := must(readRecord(e.store.fsys, e.ws.dir, oldest))(t)
			if rec.Tier == "transcript" {
				t.Fatal("the session used since the plan was trimmed")
			}
			if got := listed(t, e.ws); !slices.Contains(got, oldest) || !slices.Contains(got, newest) {
				t.Fatalf("listed after the run: %v", got)
			}
		})
	}
}

// TestPruneKeepsObjectsTheStatCacheNames: a whole-workspace record takes
// the content before of a file its stat cache knows from the cache,
// unread, so the object the cache names is all there is of that content
// once the call changes the file. A prune (the sweep's, daily) must keep
// it, however old and whatever names it: else a week on, a record of a
// long-stable file names content that is gone, and a file revert across it
// refuses with an unrecorded conflict.
func TestPruneKeepsObjectsTheStatCacheNames(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	dir := e.ws.Path()
	noErr(t, os.WriteFile(filepath.Join(dir, "stable.txt"), []byte("stable for weeks\n"), 0o644))
	noErr(t, os.WriteFile(filepath.Join(dir, "busy.txt"), []byte("busy\n"), 0o644))
	s := e.ws.Create(SessionOptions{})
	must(s.Append(ctx, Item{Type: User, Text: "change the busy one"}))(t)
	must(s.Exec(ctx, `F=busy.txt; echo changed > "$F"`, ExecOptions{}))(t)
	noErr(t, s.Close())

	c := must(scope.DecodeCache(must(vfs.ReadFile(e.store.fsys, statCacheName(e.ws.dir)))(t)))(t)
	var cached []objects.ID
	c.Hashes(func(id objects.ID) { cached = append(cached, id) })
	if !slices.Contains(cached, objects.Sum([]byte("stable for weeks\n"))) {
		t.Fatalf("the stat cache does not name stable.txt's content: %v", cached)
	}
	e.advance(8 * 24 * time.Hour)
	st := must(e.store.Stats(ctx))(t)
	if st.Reclaim.UnreferencedObjects.Files != 0 {
		t.Errorf("stats count %d objects as reclaimable, which prune keeps", st.Reclaim.UnreferencedObjects.Files)
	}
	must(e.store.Prune(ctx, PruneOptions{}))(t)
	for _, id := range cached {
		if _, err := e.ws.objects().Stat(id); err != nil {
			t.Errorf("prune removed object %s the stat cache names: %v", id, err)
		}
	}

	// The agent then changes the stable file: the revert puts it back.
	s = must(e.ws.Open(ctx, s.ID(), SessionOptions{}))(t)
	p := must(s.Append(ctx, Item{Type: User, Text: "now the stable one"}))(t)
	must(s.Exec(ctx, `F=stable.txt; echo agent > "$F"`, ExecOptions{}))(t)
	must(s.Revert(ctx, p.ID, RevertFiles))(t)
	noErr(t, s.Close())
	if b := must(os.ReadFile(filepath.Join(dir, "stable.txt")))(t); string(b) != "stable for weeks\n" {
		t.Fatalf("after the revert stable.txt holds %q", b)
	}
}

// TestPruneKeepsObjectsAHookWalkNames: the walk a pre-tool hook keeps for
// its post-tool hook (hooks/<id>/<call>.tree) names the content before of
// every file it covers; prune keeps those objects while the walk is there.
func TestPruneKeepsObjectsAHookWalkNames(t *testing.T) {
	e := newMemEnv(t)
	_, id := keptHookWalk(t, e)
	must(e.store.Prune(context.Background(), PruneOptions{}))(t)
	if _, err := e.ws.objects().Stat(id); err != nil {
		t.Fatalf("prune removed the object a kept hook walk names: %v", err)
	}
}

// TestPruneKeepsObjectsAForgottenHookWalkNames: a forget takes the
// session's hook walks into the trash, and a restore brings them back for
// its post-tool hooks (TestForgetMovesHookMarkers), so while the session
// is in the trash its walks keep their objects as the workspace's do.
func TestPruneKeepsObjectsAForgottenHookWalkNames(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	sess, id := keptHookWalk(t, e)
	must(e.store.RunRetention(ctx, RetentionOptions{Action: ActionForget, Sessions: []string{sess}}))(t)
	if st := must(e.store.Stats(ctx))(t); st.Reclaim.UnreferencedObjects.Files != 0 {
		t.Errorf("stats count %d objects as reclaimable, which prune keeps", st.Reclaim.UnreferencedObjects.Files)
	}
	must(e.store.Prune(ctx, PruneOptions{}))(t)
	if _, err := e.ws.objects().Stat(id); err != nil {
		t.Fatalf("prune removed the object a forgotten session's hook walk names: %v", err)
	}
}

// keptHookWalk stores a walk of the workspace (one file, a.txt) as a
// pre-tool hook does, keeps it for a closed session's post-tool hook
// (hooks/<id>/toolu_1.tree), and moves the clock past a prune's grace:
// the walk is all that names the object of a.txt's content, id.
func keptHookWalk(t *testing.T, e *memEnv) (sess string, id objects.ID) {
	t.Helper()
	ctx := context.Background()
	dir := e.ws.Path()
	noErr(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("before the agent's command\n"), 0o644))
	objs := e.ws.objects()
	tree := must(scope.Walk(ctx, dir, scope.Options{StateDir: e.store.home,
		Hash: func(_ string, r io.Reader) (objects.ID, error) { in, err := objs.Put(ctx, r); return in.ID, err }}))(t)
	id = objects.Sum([]byte("before the agent's command\n"))
	if tree.Lookup("a.txt") == nil || tree.Lookup("a.txt").Hash != id {
		t.Fatal("the walk did not store a.txt")
	}
	sess = closedSession(t, e, 0)
	noErr(t, e.store.fsys.MkdirAll(hooksDir(e.ws.dir, sess), vfs.DirPerm))
	noErr(t, vfs.WriteFileAtomic(e.store.fsys, path.Join(hooksDir(e.ws.dir, sess), "toolu_1.tree"), scope.EncodeTree(tree)))
	e.advance(8 * 24 * time.Hour)
	return sess, id
}

// TestSessionReloadsStatCacheBeforePruneAge: a session open for days (a
// REPL left running) holds a stat cache whose hashes, learned in memory,
// no file names, so a prune may remove their objects once TrashDays old.
// Before that age it loads the cache file again (which prune honours) and
// drops its last walk, so no record takes a content before from memory a
// prune may have removed.
func TestSessionReloadsStatCacheBeforePruneAge(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	noErr(t, os.WriteFile(filepath.Join(e.ws.Path(), "a.txt"), []byte("a\n"), 0o644))
	s := e.ws.Create(SessionOptions{})
	defer s.Close()
	must(s.Append(ctx, Item{Type: User, Text: "go"}))(t)
	must(s.Exec(ctx, `F=a.txt; echo b > "$F"`, ExecOptions{}))(t)
	first := s.calls.Cache
	e.advance(cacheTrust - time.Hour)
	must(s.Exec(ctx, `F=a.txt; echo c > "$F"`, ExecOptions{}))(t)
	if s.calls.Cache != first {
		t.Fatal("the cache was loaded again before it had to be")
	}
	e.advance(time.Hour)
	must(s.Exec(ctx, `F=a.txt; echo d > "$F"`, ExecOptions{}))(t)
	if s.calls.Cache == first {
		t.Fatalf("a stat cache held for %v is still used", cacheTrust)
	}
}

// TestPruneKeepsObjectsWhenAHookFolderCannotBeListed: a hooks folder that
// cannot be listed (an I/O error, not absence) may hold a walk that names
// objects, so the prune removes no object of that workspace.
func TestPruneKeepsObjectsWhenAHookFolderCannotBeListed(t *testing.T) {
	for _, which := range []string{"hooks", "hooks/<session>"} {
		t.Run(which, func(t *testing.T) {
			ctx := context.Background()
			e := newMemEnv(t)
			sess := closedSession(t, e, 0)
			objs := e.ws.objects()
			in := must(objs.Put(ctx, strings.NewReader("only a hook walk names this\n")))(t)
			noErr(t, e.store.fsys.MkdirAll(hooksDir(e.ws.dir, sess), vfs.DirPerm))
			e.advance(8 * 24 * time.Hour)
			folder := path.Join(e.ws.dir, hooksFolder)
			if which != "hooks" {
				folder = hooksDir(e.ws.dir, sess)
			}
			e.faulty.Inject(vfs.Rule{Op: vfs.OpReadDir, Path: folder})
			_, _ = e.store.Prune(ctx, PruneOptions{})
			if _, err := objs.Stat(in.ID); err != nil {
				t.Fatalf("prune removed an object while %s could not be listed: %v", folder, err)
			}
		})
	}
}

// TestPruneKeepsObjectsAPendingMarkerNames: a pre-tool hook's marker
// (hooks/<id>/<call>.json) names the pre-images it stored; they are in no
// journal until the post-tool hook settles the change, and a forgotten
// session's markers wait in the trash for a restore, so a prune keeps
// them while the marker is there.
func TestPruneKeepsObjectsAPendingMarkerNames(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	sess := closedSession(t, e, 0)
	objs := e.ws.objects()
	in := must(objs.Put(ctx, strings.NewReader("the pre-image a marker holds\n")))(t)
	loose := must(objs.Put(ctx, strings.NewReader("named by nothing\n")))(t)
	marker, err := json.Marshal(PendingChange{V: 1, Tool: "write", Call: "toolu_1", At: mkTime(e.now),
		Files: []changes.FileChange{{Path: "a.txt", Before: &fstate.State{OID: in.ID.String(), Size: in.Size}}}})
	noErr(t, err)
	noErr(t, e.store.fsys.MkdirAll(hooksDir(e.ws.dir, sess), vfs.DirPerm))
	noErr(t, vfs.WriteFileAtomic(e.store.fsys, hookMarker(e.ws.dir, sess, "toolu_1"), marker))
	e.advance(8 * 24 * time.Hour)
	must(e.store.Prune(ctx, PruneOptions{}))(t)
	if _, err := objs.Stat(in.ID); err != nil {
		t.Fatalf("prune removed the pre-image a pending marker names: %v", err)
	}
	if _, err := objs.Stat(loose.ID); err == nil {
		t.Fatal("prune kept an object nothing names: the test proves nothing")
	}
}

// TestPruneKeepsObjectsWhenItCannotTell: a folder whose files name objects
// (the sessions folder, the task transcripts) that cannot be listed, a
// journal that cannot be read, or drops.jsonl that cannot be read, keeps
// every object of the workspace, and the prune says why instead of
// passing in silence; once the fault is gone the objects are still there.
func TestPruneKeepsObjectsWhenItCannotTell(t *testing.T) {
	for _, c := range []struct {
		name string
		rule func(ws, sess string) vfs.Rule
	}{
		{"sessions folder", func(ws, _ string) vfs.Rule {
			return vfs.Rule{Op: vfs.OpReadDir, Path: path.Join(ws, sessionsDir)}
		}},
		{"tasks folder", func(ws, _ string) vfs.Rule {
			return vfs.Rule{Op: vfs.OpReadDir, Path: tasksDir(ws)}
		}},
		{"items journal", func(ws, sess string) vfs.Rule {
			return vfs.Rule{Op: vfs.OpOpen, Path: itemsName(ws, sess)}
		}},
		{"drops journal", func(ws, _ string) vfs.Rule {
			return vfs.Rule{Op: vfs.OpOpen, Path: dropsName(ws)}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			e := newMemEnv(t)
			s := e.ws.Create(SessionOptions{})
			must(s.Append(ctx, Item{Type: User, Text: string(bigContent("a long prompt, stored as an object"))}))(t)
			must(0, s.Close())(t)
			objs := objectCount(t, e.ws)
			if objs == 0 {
				t.Fatal("the long prompt made no object")
			}
			e.advance(8 * 24 * time.Hour)
			e.faulty.Inject(c.rule(e.ws.dir, s.ID()))
			_, err := e.store.Prune(ctx, PruneOptions{})
			if err == nil || !strings.Contains(err.Error(), "none was removed") {
				t.Fatalf("prune: %v; want it to say it could not tell", err)
			}
			e.faulty.Reset()
			if n := objectCount(t, e.ws); n != objs {
				t.Fatalf("prune removed %d of %d objects while it could not tell", objs-n, objs)
			}
			if rep := must(e.store.Prune(ctx, PruneOptions{}))(t); rep.Objects != 0 {
				t.Fatalf("a prune without the fault removed %d named objects", rep.Objects)
			}
		})
	}
}
