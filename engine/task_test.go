package engine

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"cairn/internal/vfs"
)

func taskRecordOf(t *testing.T, ws *Workspace, session, id string) TaskRecord {
	t.Helper()
	for _, r := range must(ws.Tasks(context.Background(), session))(t) {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("no task %s in %s", id, session)
	return TaskRecord{}
}

func itemTexts(items []Item) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Text)
	}
	return out
}

// A task call owns a transcript of its own: items with parents, long texts
// as payload objects, read back on demand; the result answering the call
// settles it, and a later call continues it from its saved history.
func TestTaskTranscriptLifecycle(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	s := newSession(t, ws)
	task, call, err := s.StartTask(ctx, TaskStart{Description: "Implement active footer chips"})
	if err != nil {
		t.Fatal(err)
	}
	if task.ID() != "implement-active-footer-chips" || call.Type != ToolCall || call.Tool != TaskTool || call.Task != task.ID() {
		t.Fatalf("task %s, call %+v", task.ID(), call)
	}
	long := strings.Repeat("a long sub-agent answer ", 2000) // over 16 KiB: an object
	must(task.Append(ctx, Item{Type: User, Text: "Implement active footer chips"}))(t)
	tc := must(task.Append(ctx, Item{Type: ToolCall, Tool: "read", Text: "footer.go"}))(t)
	must(task.Append(ctx, Item{Type: ToolResult, Call: tc.ID, Text: "package footer"}))(t)
	must(task.Append(ctx, Item{Type: Assistant, Text: long}))(t)
	if _, err := task.Append(ctx, Item{Type: Assistant, Parent: "i-nothere"}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a parent the transcript lacks: %v", err)
	}
	if r := taskRecordOf(t, ws, s.ID(), task.ID()); r.State != TaskRunning || r.Items != 4 || r.Label != "Implement active footer chips" || !slices.Equal(r.Calls, []string{call.ID}) {
		t.Fatalf("running record %+v", r)
	}
	// The session's own transcript holds the call, not the sub-agent's items.
	if n := len(s.Transcript()); n != 2 {
		t.Fatalf("the session holds %d items", n)
	}
	must(s.Append(ctx, Item{Type: ToolResult, Call: call.ID, Text: "chips done"}))(t)
	r := taskRecordOf(t, ws, s.ID(), task.ID())
	if r.State != TaskSettled || r.Items != 4 || r.EndedAt == nil || r.Bytes < int64(len(long)) {
		t.Fatalf("settled record %+v", r)
	}
	if _, err := task.Append(ctx, Item{Type: Assistant, Text: "late"}); !errors.Is(err, ErrRefused) {
		t.Fatalf("appending to a settled task: %v", err)
	}
	v := must(ws.ReadTask(ctx, s.ID(), task.ID()))(t)
	if got := itemTexts(v.Transcript()); len(got) != 4 || got[3] != long || got[1] != "footer.go" {
		t.Fatalf("transcript %d items", len(got))
	}

	// Continued: the id is kept and new items follow the saved history.
	again, call2, err := s.StartTask(ctx, TaskStart{Description: "also the tooltips", Continue: task.ID()})
	if err != nil {
		t.Fatal(err)
	}
	if again.ID() != task.ID() || call2.Task != task.ID() {
		t.Fatalf("continued as %s", again.ID())
	}
	n := must(again.Append(ctx, Item{Type: User, Text: "also the tooltips"}))(t)
	if n.Parent != v.Transcript()[3].ID {
		t.Fatalf("the continuation's first item hangs off %s, not the saved head", n.Parent)
	}
	if _, _, err := s.StartTask(ctx, TaskStart{Description: "x", Continue: task.ID()}); !errors.Is(err, ErrRefused) {
		t.Fatalf("continuing a running task: %v", err)
	}
	must(0, again.End(ctx, TaskCancelled))(t)
	r = taskRecordOf(t, ws, s.ID(), task.ID())
	if r.State != TaskCancelled || r.Items != 5 || len(r.Calls) != 2 {
		t.Fatalf("after the continuation: %+v", r)
	}
	// A second task of the same description gets the next suffix; a
	// description with nothing usable falls back to "task".
	t2, _, _ := s.StartTask(ctx, TaskStart{Description: "Implement active footer chips"})
	t3, _, _ := s.StartTask(ctx, TaskStart{Description: "???"})
	sh := must(s.startShellJob(ctx, "cargo test --all", ""))(t)
	if t2.ID() != "implement-active-footer-chips-2" || t3.ID() != "task" || sh.ID() != "shell-cargo-test" {
		t.Fatalf("ids %s %s %s", t2.ID(), t3.ID(), sh.ID())
	}
	must(0, sh.End(ctx, TaskSettled))(t)
	if rep := must(ws.s.Fsck(ctx))(t); len(rep.Problems) != 0 {
		t.Fatalf("fsck: %+v", rep.Problems)
	}
}

// A record still running when its process dies reads as interrupted, to
// every reader and to the next owner, which never resumes it; a clean
// close cancels what still runs; a held task outlives its process.
func TestTaskStatesAcrossCrashAndClose(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	s := newSession(t, e.ws)
	task, _, err := s.StartTask(ctx, TaskStart{Description: "crashy"})
	if err != nil {
		t.Fatal(err)
	}
	must(task.Append(ctx, Item{Type: User, Text: "go"}))(t)
	must(0, task.Sync())(t)
	sh := must(s.startShellJob(ctx, "make", ""))(t)
	if r := taskRecordOf(t, e.ws, s.ID(), "crashy"); r.State != TaskRunning {
		t.Fatalf("before the crash: %+v", r)
	}
	e.mem.Crash()
	for _, id := range []string{task.ID(), sh.ID()} {
		if r := taskRecordOf(t, e.ws, s.ID(), id); r.State != TaskInterrupted {
			t.Fatalf("%s after the crash: %+v", id, r)
		}
	}
	s2 := must(e.ws.Open(ctx, s.ID(), SessionOptions{}))(t)
	if r := taskRecordOf(t, e.ws, s.ID(), "crashy"); r.State != TaskInterrupted || r.Items != 1 {
		t.Fatalf("after reopen: %+v", r)
	}
	if _, _, err := s2.StartTask(ctx, TaskStart{Description: "x", Continue: "crashy"}); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("continuing an interrupted task: %v", err)
	}
	if _, err := s2.Task(ctx, "crashy"); !errors.Is(err, ErrRefused) {
		t.Fatalf("opening an interrupted task: %v", err)
	}
	owned, _, _ := s2.StartTask(ctx, TaskStart{Description: "owned"})
	held, heldCall, _ := s2.StartTask(ctx, TaskStart{Description: "held", Held: true})
	must(held.Append(ctx, Item{Type: User, Text: "held item"}))(t)
	must(0, s2.Close())(t)
	if r := taskRecordOf(t, e.ws, s.ID(), owned.ID()); r.State != TaskCancelled {
		t.Fatalf("a task running at a clean close: %+v", r)
	}
	if r := taskRecordOf(t, e.ws, s.ID(), held.ID()); r.State != TaskRunning || r.Items != 1 {
		t.Fatalf("a held task after its process closed: %+v", r)
	}
	// The next owner appends to the held task and delivers its result.
	s3 := must(e.ws.Open(ctx, s.ID(), SessionOptions{}))(t)
	defer s3.Close()
	h := must(s3.Task(ctx, held.ID()))(t)
	must(h.Append(ctx, Item{Type: Assistant, Text: "held answer"}))(t)
	must(s3.Append(ctx, Item{Type: ToolResult, Parent: heldCall.ID, Call: heldCall.ID, Text: "done"}))(t)
	if r := taskRecordOf(t, e.ws, s.ID(), held.ID()); r.State != TaskSettled || r.Items != 2 {
		t.Fatalf("the held task after its result: %+v", r)
	}
}

// openSpy records every file a store opens. (Listing a folder is not
// opening a file: the first open of a workspace in a store lists the tasks
// folder for orphans, as it lists the outputs folder.)
type openSpy struct {
	vfs.FS
	mu     sync.Mutex
	opened []string
}

func (o *openSpy) OpenFile(name string, flag int, perm fs.FileMode) (vfs.File, error) {
	o.mu.Lock()
	o.opened = append(o.opened, name)
	o.mu.Unlock()
	return o.FS.OpenFile(name, flag, perm)
}

func (o *openSpy) taken() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []string
	for _, n := range o.opened {
		if strings.Contains(n, "/"+tasksFolder+"/") {
			out = append(out, n)
		}
	}
	o.opened = nil
	return out
}

// Opening (resuming) a session never opens a file of its task folder:
// transcripts load on demand. Reading one does, under the eager-load
// ceiling.
func TestResumeReadsNoTaskTranscript(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	spy := &openSpy{FS: e.faulty}
	st := must(OpenFS(spy, "/mem", WithClock(e.clock)))(t)
	ws := must(st.Workspace(e.ws.Path()))(t)
	s := newSession(t, ws)
	task, call, _ := s.StartTask(ctx, TaskStart{Description: "big"})
	for range 40 {
		must(task.Append(ctx, Item{Type: Assistant, Text: strings.Repeat("x", 60<<10)}))(t)
	}
	must(s.Append(ctx, Item{Type: ToolResult, Call: call.ID, Text: "ok"}))(t)
	must(0, s.Close())(t)
	spy.taken()
	r := must(ws.Open(ctx, s.ID(), SessionOptions{}))(t)
	must(0, r.Close())(t)
	must(ws.Read(ctx, s.ID()))(t)
	if got := spy.taken(); len(got) != 0 {
		t.Fatalf("opening the session touched its tasks: %v", got)
	}
	v := must(ws.ReadTask(ctx, s.ID(), task.ID()))(t)
	if len(v.Transcript()) != 40 || len(v.Transcript()[0].Text) != 60<<10 {
		t.Fatal("the transcript does not read back")
	}
	// 40 payloads of 60 KiB: over a 1 MB ceiling the transcript is refused.
	low := must(OpenFS(spy, "/mem", WithClock(e.clock), WithMaxEagerLoadMB(1)))(t)
	lws := must(low.Workspace(e.ws.Path()))(t)
	var over *LoadLimitError
	if _, err := lws.ReadTask(ctx, s.ID(), task.ID()); !errors.As(err, &over) {
		t.Fatalf("a transcript over the ceiling: %v", err)
	}
}

// A fork copies exactly the tasks whose calls its path keeps: up to the
// continuation it does not keep, a running one interrupted in the child,
// their objects shared.
func TestForkCopiesReachableTasks(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	s := newSession(t, ws)
	long := strings.Repeat("payload of the first task ", 1000)
	a, aCall, _ := s.StartTask(ctx, TaskStart{Description: "first"})
	must(a.Append(ctx, Item{Type: User, Text: "a1"}))(t)
	must(a.Append(ctx, Item{Type: Assistant, Text: long}))(t)
	must(s.Append(ctx, Item{Type: ToolResult, Call: aCall.ID, Text: "first done"}))(t)
	u2 := must(s.Append(ctx, Item{Type: User, Text: "second prompt"}))(t)
	b, _, _ := s.StartTask(ctx, TaskStart{Description: "second"})
	must(b.Append(ctx, Item{Type: User, Text: "b1"}))(t)
	a2, _, _ := s.StartTask(ctx, TaskStart{Description: "first, more", Continue: a.ID()})
	must(a2.Append(ctx, Item{Type: User, Text: "a2 after the continuation"}))(t)
	must(0, s.Commit(ctx))(t)
	objs := countObjects(t, ws)

	// At the second prompt: history stops before it, so only "first",
	// as it was before its continuation.
	res := must(s.Fork(ctx, u2.ID))(t)
	if !slices.Equal(res.Tasks, []string{"first"}) {
		t.Fatalf("fork at u2 copied %v", res.Tasks)
	}
	ts := must(ws.Tasks(ctx, res.Session))(t)
	if len(ts) != 1 || ts[0].State != TaskSettled || len(ts[0].Calls) != 1 {
		t.Fatalf("the child's tasks %+v", ts)
	}
	if got := itemTexts(must(ws.ReadTask(ctx, res.Session, "first"))(t).Transcript()); !slices.Equal(got, []string{"a1", long}) {
		t.Fatalf("the child's transcript of first: %d items", len(got))
	}
	// At the head: both, "first" with its continuation and both running
	// in the parent, interrupted in the child.
	res2 := must(s.Fork(ctx, ""))(t)
	if !slices.Equal(res2.Tasks, []string{"first", "second"}) {
		t.Fatalf("fork at the head copied %v", res2.Tasks)
	}
	for _, r := range must(ws.Tasks(ctx, res2.Session))(t) {
		if r.State != TaskInterrupted {
			t.Fatalf("a task running in the parent, in the child: %+v", r)
		}
	}
	if got := itemTexts(must(ws.ReadTask(ctx, res2.Session, "first"))(t).Transcript()); len(got) != 3 || got[2] != "a2 after the continuation" {
		t.Fatalf("the child's transcript of first: %q", got)
	}
	if r := taskRecordOf(t, ws, s.ID(), "second"); r.State != TaskRunning {
		t.Fatalf("the fork changed the parent's task: %+v", r)
	}
	if n := countObjects(t, ws); n != objs {
		t.Fatalf("forks stored objects again: %d, was %d", n, objs)
	}
	// A fork before any task call copies none.
	res3 := must(s.Fork(ctx, s.Transcript()[0].ID))(t)
	if len(res3.Tasks) != 0 {
		t.Fatalf("a fork before any task copied %v", res3.Tasks)
	}
	if _, err := ws.s.fsys.Stat(taskDir(ws.dir, res3.Session)); !vfs.IsNotExist(err) {
		t.Fatalf("a fork without tasks made a task folder: %v", err)
	}
	if rep := must(ws.s.Fsck(ctx))(t); len(rep.Problems) != 0 {
		t.Fatalf("fsck: %+v", rep.Problems)
	}
}

// fsck names what is wrong in the task folders: a damaged transcript line,
// a transcript no record names, a record without its transcript, task
// records of no session, a call naming a task with no record.
func TestFsckTasks(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	s := newSession(t, ws)
	task, _, _ := s.StartTask(ctx, TaskStart{Description: "checked"})
	must(task.Append(ctx, Item{Type: User, Text: "x"}))(t)
	must(0, s.Close())(t)
	fsys := ws.s.fsys
	name := taskItemsName(ws.dir, s.ID(), task.ID())
	b := must(vfs.ReadFile(fsys, name))(t)
	must(0, vfs.WriteFileAtomic(fsys, name, append(b, []byte("{\"v\":1,\"kind\":\"item\",\"id\":\"i-1\",\"parent\":\"i-gone\",\"type\":\"user\"}\n")...)))(t)
	must(0, vfs.WriteFileAtomic(fsys, taskItemsName(ws.dir, s.ID(), "stray"), b))(t)
	orphan := newSessionID()
	must(0, fsys.MkdirAll(taskDir(ws.dir, orphan), vfs.DirPerm))(t)
	rep := must(ws.s.Fsck(ctx))(t)
	var got []string
	for _, p := range append(rep.Problems, rep.Notes...) {
		got = append(got, path.Base(p.Path)+": "+p.Problem)
	}
	for _, want := range []string{"names parent i-gone", "stray.items.jsonl: a transcript no task record names", "task records of no session"} {
		if !slices.ContainsFunc(got, func(g string) bool { return strings.Contains(g, want) }) {
			t.Errorf("fsck does not say %q: %q", want, got)
		}
	}
	// The records journal removed: the call names a task with no record.
	fsys.Remove(taskRecordsName(ws.dir, s.ID()))
	rep = must(ws.s.Fsck(ctx))(t)
	if !slices.ContainsFunc(rep.Problems, func(p FsckProblem) bool { return strings.Contains(p.Problem, "has no record") }) {
		t.Errorf("fsck misses the call naming a lost task: %+v", rep.Problems)
	}
}

// A task folder whose session has no items journal (a fork or delete that
// did not finish) is removed once older than the grace; a live session's
// is never touched.
func TestCleanOrphanTasks(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	s := newSession(t, e.ws)
	must(s.startShellJob(ctx, "make", ""))(t)
	orphan := newSessionID()
	must(0, e.mem.MkdirAll(taskDir(e.ws.dir, orphan), vfs.DirPerm))(t)
	must(0, vfs.WriteFileAtomic(e.mem, taskRecordsName(e.ws.dir, orphan), []byte("{}\n")))(t)
	if got := must(e.ws.cleanOrphanTasks(ctx, e.clock(), outputGrace))(t); len(got) != 0 {
		t.Fatalf("removed within the grace: %v", got)
	}
	e.advance(outputGrace + time.Second)
	got := must(e.ws.cleanOrphanTasks(ctx, e.clock(), outputGrace))(t)
	if !slices.Equal(got, []string{orphan}) {
		t.Fatalf("removed %v, want the orphan only", got)
	}
	if _, err := e.mem.Stat(taskRecordsName(e.ws.dir, s.ID())); err != nil {
		t.Fatalf("the live session's records: %v", err)
	}
}

// startShellJob records a background shell job about to run cmdline,
// started by tool_call item call: a record only (its output goes to the
// tool outputs). The record is synced before it returns; when it returns
// an error the command must not run. End it with Task.End.
func (s *Session) startShellJob(ctx context.Context, cmdline, call string) (*Task, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if call != "" && s.st.Item(call) == nil {
		return nil, noItem(call, s.st.ID)
	}
	tl, err := s.taskLog(ctx)
	if err != nil {
		return nil, err
	}
	run, err := tl.StartShell(cmdline, call)
	if err != nil {
		return nil, s.taskError(err, "")
	}
	return &Task{run: run, s: s}, nil
}
