package engine

import (
	"context"
	"fmt"
	"os"
	"path"
	"strings"
	"sync"

	"cairn/engine/ids"
	"cairn/internal/vfs"
	"cairn/journal"
)

// Sub-agent tasks and background shell jobs. A "task" tool_call starts a
// sub-agent whose conversation is a transcript of its own, and a
// background shell job runs beside the session; both keep a record with
// the session. They live in the workspace folder, beside the sessions:
//
//	tasks/<session id>/tasks.jsonl               the records (Part of the format)
//	tasks/<session id>/<task id>.items.jsonl     a task's transcript
//
// The records journal holds, one per line:
//
//	{"v":1,"kind":"start","task":ID,"type":"task|shell","label":L,"cmd":C,"call":ITEM,"at":T,
//	 "background":true,"held":true,"pid":P,"owner":"o-..."}
//	{"v":1,"kind":"continue","task":ID,"call":ITEM,"at":T,"from":N,"held":true,"pid":P,"owner":"o-..."}
//	{"v":1,"kind":"end","task":ID,"state":"settled|cancelled|interrupted","at":T,"items":N,"bytes":N}
//
// A task's id is the slug of its label or description (package ids: lowercase
// ASCII letters, digits and hyphens, at most 64 characters, "-2", "-3" on a
// collision), unique among the records of its session; a shell job's is its
// shell label ("shell-cargo-test"). A continuation keeps the id, and
// "from" counts the item lines the transcript held when it began, so a fork
// can take the history up to a continuation it does not keep. "call" names
// the tool_call item of the session that started or continued it; that item
// names the task back ("task":ID on its line, Item.Task).
//
// A transcript is an items journal of its own: a header line, then item
// lines exactly as a session's (parents, payload objects over 16 KiB,
// attachments), and the repair line of a torn tail cut (package journal):
//
//	{"v":1,"kind":"task","task":ID,"session":SID,"at":T}
//	{"v":1,"kind":"item","id":"i-...","parent":"i-..."|absent,"type":TYPE,"at":T,"text":"..."}
//
// The records and the transcript are written before the call item that
// names them (data before the line that names it). The records journal is
// synced line by line; a transcript is synced when its task ends, on
// Task.Sync and when the session closes.
//
// A record's state is "running" from its start (or continue) line until
// an end line; "settled" once its result was delivered (a tool_result
// answering its call, or Task.End), "cancelled" when it was stopped or its
// session closed while it ran. A record still running whose owner is gone
// (the process crashed, the session was reopened) reads as "interrupted":
// its outcome is unknown, and it is never resumed or run again. A "held"
// record belongs to the session rather than to a process (the plumbing,
// one process per command, holds its tasks so): it runs until it ends.
// A settled or cancelled task can be continued by a later task call, its
// new items appended to its saved history; an interrupted one cannot.
//
// Opening a session never reads these files. A transcript is read on demand
// (Workspace.ReadTask), hydrated under the eager-load ceiling; Workspace.Tasks
// lists the records. Settled records are kept with the session (archived)
// until it is deleted (Workspace.DeleteTasks) or trimmed by retention. A
// fork copies the records and transcripts of the tasks whose calls its
// path keeps (task_fork.go).

// Task record states, as TaskRecord.State. They are part of the format.
const (
	TaskRunning     = "running"
	TaskSettled     = "settled"
	TaskCancelled   = "cancelled"
	TaskInterrupted = "interrupted"
)

// Record types, as TaskRecord.Type.
const (
	TaskTypeAgent = "task"  // a sub-agent with a transcript
	TaskTypeShell = "shell" // a background shell job, a record only
)

// TaskTool is the tool name of a tool_call that starts a sub-agent.
const TaskTool = "task"

const (
	tasksFolder     = "tasks"
	taskRecordsFile = "tasks.jsonl"
	taskItemsSuffix = ".items.jsonl"
	kindTask        = "task" // a transcript's header line
)

func tasksDir(dir string) string         { return path.Join(dir, tasksFolder) }
func taskDir(dir, session string) string { return path.Join(dir, tasksFolder, session) }
func taskRecordsName(dir, session string) string {
	return path.Join(dir, tasksFolder, session, taskRecordsFile)
}
func taskItemsName(dir, session, task string) string {
	return path.Join(dir, tasksFolder, session, task+taskItemsSuffix)
}

// taskLine is a line of the records journal.
type taskLine struct {
	V          int    `json:"v"`
	Kind       string `json:"kind"` // start | continue | end
	Task       string `json:"task"`
	Type       string `json:"type,omitempty"`
	Label      string `json:"label,omitempty"`
	Cmd        string `json:"cmd,omitempty"`
	Call       string `json:"call,omitempty"`
	At         Time   `json:"at"`
	Background bool   `json:"background,omitempty"`
	Held       bool   `json:"held,omitempty"`
	PID        int    `json:"pid,omitempty"`
	Owner      string `json:"owner,omitempty"`
	From       *int   `json:"from,omitempty"`
	State      string `json:"state,omitempty"`
	Items      *int   `json:"items,omitempty"`
	Bytes      *int64 `json:"bytes,omitempty"`
}

// TaskStart says what a task call starts.
type TaskStart struct {
	// Description is the call's text (what the sub-agent is asked).
	Description string
	// Label, when set, is what a new task's id is made from (a workflow
	// label); else the description.
	Label string
	// Continue names a settled or cancelled task to continue from its
	// saved history; its id is kept.
	Continue string
	// Parent of the call item ("" = the head).
	Parent     string
	Background bool
	// Held: the task belongs to the session, not to this process, and
	// runs until it ends (the plumbing's tasks).
	Held bool
}

// Task is a running task (or background shell job) of a session open here.
type Task struct {
	log  *taskLog
	id   string
	kind string
	held bool
	st   *state          // the transcript's shape (texts not kept)
	w    *journal.Writer // the transcript; nil for a shell job
	// lines counts the transcript's item lines.
	lines int
	done  bool
}

// ID is the task's id: use it unchanged, never rebuilt from a label.
func (t *Task) ID() string { return t.id }

// taskLog is a session's records journal as its owner writes it, made on
// first use and closed with the session.
type taskLog struct {
	mu      sync.Mutex
	s       *Session
	fsys    vfs.FS
	name    string
	token   string
	w       *journal.Writer
	running map[string]*Task // running here: owned by this log, or held ones opened here
	closed  bool
}

// taskClosed stands in Store.taskLive for the log of a session closed here.
type taskClosed struct{}

// taskLogLocked is the session's task log, made on first use. s.mu is held.
func (s *Session) taskLogLocked(ctx context.Context) (*taskLog, error) {
	switch {
	case s.closed:
		return nil, fmt.Errorf("engine: session %s is closed", s.st.id)
	case s.readOnly:
		return nil, refusedf("session %s is open read-only", s.st.id)
	}
	if err := s.materializeForItem(ctx); err != nil {
		return nil, err
	}
	if s.unrecorded != nil {
		return nil, fmt.Errorf("engine: session %s is not recorded: %w", s.st.id, s.unrecorded)
	}
	if s.tasks == nil {
		w := s.ws
		s.tasks = &taskLog{s: s, fsys: w.s.fsys, name: taskRecordsName(w.dir, s.st.id), token: "o-" + randHex(8),
			running: map[string]*Task{}}
		w.s.taskLive.Store(s.tasks.name, s.tasks)
	}
	return s.tasks, nil
}

// open opens the records journal for appending (cutting a torn tail).
func (tl *taskLog) open() error {
	if tl.closed {
		return fmt.Errorf("engine: session %s is closed", tl.s.st.id)
	}
	if tl.w != nil {
		return nil
	}
	if err := ensureDir(tl.fsys, path.Dir(tl.name)); err != nil {
		return fmt.Errorf("engine: task folder: %w", err)
	}
	w, _, err := journal.OpenWriter(tl.fsys, tl.name, journal.Options{Sync: journal.SyncEvery, Now: tl.s.ws.s.now})
	if err != nil {
		return fmt.Errorf("engine: open task records: %w", err)
	}
	tl.w = w
	return nil
}

// append writes l, synced; a failure drops the writer (the next write
// reopens the journal, cutting a torn line).
func (tl *taskLog) append(l *taskLine) error {
	if err := tl.open(); err != nil {
		return err
	}
	if err := tl.w.Append(l); err != nil {
		tl.w.Close()
		tl.w = nil
		return fmt.Errorf("engine: record task %s: %w", l.Task, err)
	}
	return nil
}

// records folds the journal, each record's state settled from what this
// log knows: running here, held, or interrupted.
func (tl *taskLog) records() ([]*TaskRecord, error) {
	recs, err := readTaskRecords(tl.fsys, tl.name)
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		if r.State == "" {
			r.State = TaskInterrupted
			if r.held || (r.owner == tl.token && tl.running[r.ID] != nil) {
				r.State = TaskRunning
			}
		}
	}
	return recs, nil
}

func (tl *taskLog) owner(l *taskLine) {
	if l.Held {
		return
	}
	l.PID, l.Owner = os.Getpid(), tl.token
}

// StartTask records a task call: it starts a new task (its id made from
// its label or description) or continues a settled or cancelled one, and
// appends the "task" tool_call item naming it. The record and the
// transcript are written before the item. The item and the Task are
// returned; append the sub-agent's items to the Task, and end it with
// Task.End, or by appending a tool_result that answers the call.
func (s *Session) StartTask(ctx context.Context, ts TaskStart) (*Task, Item, error) {
	if err := ctx.Err(); err != nil {
		return nil, Item{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ts.Parent != "" && s.st.items[ts.Parent] == nil {
		return nil, Item{}, noItem(ts.Parent, s.st.id)
	}
	tl, err := s.taskLogLocked(ctx)
	if err != nil {
		return nil, Item{}, err
	}
	tl.mu.Lock()
	defer tl.mu.Unlock()
	recs, err := tl.records()
	if err != nil {
		return nil, Item{}, err
	}
	w := s.ws
	call := newItemID()
	now := mkTime(w.s.Now())
	t := &Task{log: tl, kind: TaskTypeAgent, held: ts.Held}
	if ts.Continue != "" {
		if !ids.Valid(ts.Continue) {
			return nil, Item{}, fmt.Errorf("%w: %q is not a task id", ErrBadInput, ts.Continue)
		}
		var rec *TaskRecord
		for _, r := range recs {
			if r.ID == ts.Continue {
				rec = r
			}
		}
		switch {
		case rec == nil:
			return nil, Item{}, notFoundf("no task %q in session %s", ts.Continue, s.st.id)
		case rec.Type != TaskTypeAgent:
			return nil, Item{}, refusedf("%s is a shell job: shell jobs are never resumed; run a new command", rec.ID)
		case rec.State == TaskRunning:
			return nil, Item{}, refusedf("task %s is running: only a settled task can be continued", rec.ID)
		case rec.State == TaskInterrupted:
			return nil, Item{}, refusedf("task %s was interrupted (its outcome is unknown) and is never resumed; start a new task", rec.ID)
		}
		t.id = rec.ID
		name := taskItemsName(w.dir, s.st.id, t.id)
		if t.st, t.lines, err = foldShape(ctx, w.s.fsys, name, t.id); err != nil {
			return nil, Item{}, err
		}
		if t.w, _, err = journal.OpenWriter(w.s.fsys, name, journal.Options{Sync: journal.SyncManual, Now: w.s.now}); err != nil {
			return nil, Item{}, fmt.Errorf("engine: open task %s: %w", t.id, err)
		}
		from := t.lines
		l := &taskLine{V: 1, Kind: "continue", Task: t.id, Call: call, At: now, From: &from, Held: ts.Held}
		tl.owner(l)
		if err := tl.append(l); err != nil {
			t.w.Close()
			return nil, Item{}, err
		}
	} else {
		label := ts.Label
		if strings.TrimSpace(label) == "" {
			label = ts.Description
		}
		taken := map[string]bool{}
		for _, r := range recs {
			taken[r.ID] = true
		}
		t.id = ids.Slug(label, func(c string) bool { return taken[c] })
		if err := ensureDir(w.s.fsys, taskDir(w.dir, s.st.id)); err != nil {
			return nil, Item{}, fmt.Errorf("engine: task folder: %w", err)
		}
		t.w, err = journal.Create(w.s.fsys, taskItemsName(w.dir, s.st.id, t.id), []any{taskHeader{V: 1, Kind: kindTask, Task: t.id, Session: s.st.id, At: now}},
			journal.Options{Sync: journal.SyncManual, Now: w.s.now})
		if err != nil {
			return nil, Item{}, fmt.Errorf("engine: create task %s: %w", t.id, err)
		}
		t.st = newState(t.id, s.ws.path)
		l := &taskLine{V: 1, Kind: "start", Task: t.id, Type: TaskTypeAgent, Label: cutLabel(label), Call: call, At: now,
			Background: ts.Background, Held: ts.Held}
		tl.owner(l)
		if err := tl.append(l); err != nil {
			t.w.Close()
			return nil, Item{}, err
		}
	}
	tl.running[t.id] = t
	it, err := s.add(ctx, Item{ID: call, Type: ToolCall, Tool: TaskTool, Parent: ts.Parent, Text: ts.Description, Task: t.id})
	if err != nil {
		t.endLocked(TaskCancelled) // best effort: the call was not recorded
		return nil, Item{}, err
	}
	return t, it, nil
}

// taskHeader is a transcript's first line.
type taskHeader struct {
	V       int    `json:"v"`
	Kind    string `json:"kind"`
	Task    string `json:"task"`
	Session string `json:"session"`
	At      Time   `json:"at"`
}

// cutLabel keeps a label to one line of at most 200 bytes.
func cutLabel(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	l, _ := head(s, 200)
	return l
}

// StartShellJob records a background shell job about to run cmdline,
// started by tool_call item call: a record only (its output goes to the
// tool outputs). The record is synced before it returns; when it returns
// an error the command must not run. End it with Task.End.
func (s *Session) StartShellJob(ctx context.Context, cmdline, call string) (*Task, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if call != "" && s.st.items[call] == nil {
		return nil, noItem(call, s.st.id)
	}
	tl, err := s.taskLogLocked(ctx)
	if err != nil {
		return nil, err
	}
	tl.mu.Lock()
	defer tl.mu.Unlock()
	recs, err := tl.records()
	if err != nil {
		return nil, err
	}
	taken := map[string]bool{}
	for _, r := range recs {
		taken[r.ID] = true
	}
	id := ids.Unique(ids.ShellLabel(cmdline), func(c string) bool { return taken[c] })
	cmd, _ := head(cmdline, ShellKeepBytes)
	l := &taskLine{V: 1, Kind: "start", Task: id, Type: TaskTypeShell, Label: id, Cmd: cmd, Call: call,
		At: mkTime(s.ws.s.Now()), Background: true}
	tl.owner(l)
	if err := tl.append(l); err != nil {
		return nil, err
	}
	t := &Task{log: tl, id: id, kind: TaskTypeShell}
	tl.running[id] = t
	return t, nil
}

// Task opens a handle on running task id of this session: one started
// here, or a held one (started by an earlier process through the plumbing).
func (s *Session) Task(ctx context.Context, id string) (*Task, error) {
	if !ids.Valid(id) {
		return nil, fmt.Errorf("%w: %q is not a task id", ErrBadInput, id)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	tl, err := s.taskLogLocked(ctx)
	if err != nil {
		return nil, err
	}
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if t := tl.running[id]; t != nil {
		return t, nil
	}
	recs, err := tl.records()
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		if r.ID != id {
			continue
		}
		if r.State != TaskRunning {
			return nil, refusedf("task %s is %s, not running: continue it with a new task call", id, r.State)
		}
		t := &Task{log: tl, id: id, kind: r.Type, held: true}
		if r.Type == TaskTypeAgent {
			name := taskItemsName(s.ws.dir, s.st.id, id)
			if t.st, t.lines, err = foldShape(ctx, tl.fsys, name, id); err != nil {
				return nil, err
			}
			if t.w, _, err = journal.OpenWriter(tl.fsys, name, journal.Options{Sync: journal.SyncManual, Now: s.ws.s.now}); err != nil {
				return nil, fmt.Errorf("engine: open task %s: %w", id, err)
			}
		}
		tl.running[id] = t
		return t, nil
	}
	return nil, notFoundf("no task %q in session %s", id, s.st.id)
}
