package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"cairn/engine/ids"
	"cairn/engine/internal/bgwork"
	"cairn/engine/internal/convlog"
	"cairn/engine/internal/tasks"
)

// Sub-agent tasks and background shell jobs, recorded in the session's
// task folder (package tasks says the format and rules). The session's
// tasks.Log is made on the first task and closed with the session; the
// store keeps each open session's log (Store.taskLive), so a reader can
// tell a running task from one cut short. Opening a session never reads
// these files: Workspace.ReadTask and Workspace.Tasks do (task_read.go).

// TaskStart says what a task call starts (tasks.Start).
type TaskStart = tasks.Start

// Task is a running task (or background shell job) of a session open here.
type Task struct {
	run *tasks.Run[*state]
	s   *Session
}

// ID is the task's id: use it unchanged, never rebuilt from a label.
func (t *Task) ID() string { return t.run.ID() }

// taskClosed stands in Store.taskLive for the log of a session closed here.
type taskClosed struct{}

// taskLog is the session's task log, made on first use. s.mu is held.
func (s *Session) taskLog(ctx context.Context) (*taskLog, error) {
	switch {
	case s.closed:
		return nil, fmt.Errorf("engine: session %s is closed", s.st.ID)
	case s.readOnly:
		return nil, refusedf("session %s is open read-only", s.st.ID)
	}
	if err := s.writableBeside(ctx); err != nil {
		return nil, err
	}
	if s.tasks == nil {
		w := s.ws
		s.tasks = tasks.NewLog[*state](w.s.fsys, taskDir(w.dir, s.st.ID), s.st.ID, s.lock, "o-"+randHex(8), w.s.now)
		w.s.taskLive.Store(s.tasks.RecordsName(), s.tasks)
	}
	return s.tasks, nil
}

// closeTasks ends the session's task log with it (tasks.Log.Close).
func (s *Session) closeTasks() {
	if s.tasks == nil {
		return
	}
	s.tasks.Close()
	s.ws.s.taskLive.CompareAndSwap(s.tasks.RecordsName(), s.tasks, taskClosed{})
}

// taskError is err of the task log in the engine's words.
func (s *Session) taskError(err error, task string) error {
	return tasks.EngineError(err, s.st.ID, task)
}

// StartTask starts a new task (its id made from its label) or continues a
// settled or cancelled one, writing its record and transcript, then appends
// the "task" tool_call item naming it. Append the sub-agent's items to the
// Task, and end it with Task.End or a tool_result answering the call.
func (s *Session) StartTask(ctx context.Context, ts TaskStart) (*Task, Item, error) {
	if err := ctx.Err(); err != nil {
		return nil, Item{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ts.Parent != "" && s.st.Item(ts.Parent) == nil {
		return nil, Item{}, noItem(ts.Parent, s.st.ID)
	}
	tl, err := s.taskLog(ctx)
	if err != nil {
		return nil, Item{}, err
	}
	// The ledger of background work lists the task too (taskWork): opened
	// first, so that its crash recovery does not see this task half made.
	led, err := s.taskLedger()
	if err != nil {
		return nil, Item{}, err
	}
	call := newItemID()
	var run *tasks.Run[*state]
	if ts.Continue != "" {
		run, err = s.continueTask(ctx, tl, ts, call)
	} else {
		label := ts.Label
		if strings.TrimSpace(label) == "" {
			label = ts.Description
		}
		taken := func(id string) bool { _, ok := led.Work(id); return ok }
		run, err = tl.StartAgent(label, call, ts.Background, ts.Held, taken, func(id string) *state { return newState(id, s.ws.path) })
	}
	if err != nil {
		return nil, Item{}, s.taskError(err, ts.Continue)
	}
	if err := led.Agree(s.knownTask(tl, run.ID())); err != nil {
		run.End(TaskCancelled) // best effort: it is not listed
		return nil, Item{}, bgworkError(err)
	}
	it, err := s.add(ctx, Item{ID: call, Type: ToolCall, Tool: TaskTool, Parent: ts.Parent, Text: ts.Description, Task: run.ID()})
	if err != nil {
		s.endTask(run, TaskCancelled) // best effort: the call was not recorded
		return nil, Item{}, err
	}
	return &Task{run: run, s: s}, it, nil
}

// continueTask continues settled or cancelled task ts.Continue, called by
// call: its transcript is folded, then opened for appending.
func (s *Session) continueTask(ctx context.Context, tl *taskLog, ts TaskStart, call string) (*tasks.Run[*state], error) {
	if !ids.Valid(ts.Continue) {
		return nil, fmt.Errorf("%w: %q is not a task id", ErrBadInput, ts.Continue)
	}
	recs, err := tl.Records()
	if err != nil {
		return nil, err
	}
	rec, err := tasks.Continuable(recs, ts.Continue, s.st.ID)
	if err != nil {
		return nil, err
	}
	st, n, err := convlog.ReadShape(ctx, s.ws.s.fsys, taskItemsName(s.ws.dir, s.st.ID, rec.ID), rec.ID)
	if err != nil {
		return nil, err
	}
	return tl.ContinueAgent(rec.ID, call, ts.Held, n, st.Bytes, st)
}

// Task opens a handle on running task id of this session: one started
// here, or a held one (started by an earlier process through the plumbing).
func (s *Session) Task(ctx context.Context, id string) (*Task, error) {
	if !ids.Valid(id) {
		return nil, fmt.Errorf("%w: %q is not a task id", ErrBadInput, id)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	tl, err := s.taskLog(ctx)
	if err != nil {
		return nil, err
	}
	if run := tl.Running(id); run != nil {
		return &Task{run: run, s: s}, nil
	}
	recs, err := tl.Records()
	if err != nil {
		return nil, err
	}
	if r := tasks.Find(recs, id); r != nil {
		if r.State != TaskRunning {
			return nil, refusedf("task %s is %s, not running: continue it with a new task call", id, r.State)
		}
		run, err := s.adoptTask(ctx, tl, r)
		if err != nil {
			return nil, err
		}
		return &Task{run: run, s: s}, nil
	}
	return nil, notFoundf("no task %q in session %s", id, s.st.ID)
}

// adoptTask takes on held task r, started by an earlier process: an
// agent's transcript is folded first.
func (s *Session) adoptTask(ctx context.Context, tl *taskLog, r *tasks.Record) (*tasks.Run[*state], error) {
	var st *state
	n := 0
	if r.Type == taskTypeAgent {
		var err error
		if st, n, err = convlog.ReadShape(ctx, s.ws.s.fsys, taskItemsName(s.ws.dir, s.st.ID, r.ID), r.ID); err != nil {
			return nil, err
		}
		return tl.Adopt(r.ID, r.Type, n, st.Bytes, st)
	}
	return tl.Adopt(r.ID, r.Type, 0, 0, nil)
}

// endTaskOnResult settles task id when a tool_result answering its call
// was appended (its result delivered). s.mu is held. A task not running
// here or held is left as it reads.
func (s *Session) endTaskOnResult(ctx context.Context, id string) error {
	tl, err := s.taskLog(ctx)
	if err != nil {
		return err
	}
	if run := tl.Running(id); run != nil {
		return s.taskError(s.endTask(run, TaskSettled), id)
	}
	recs, err := tl.Records()
	if err != nil {
		return err
	}
	if r := tasks.Find(recs, id); r != nil && r.State == TaskRunning && r.Held {
		n, bytes := 0, int64(0)
		if r.Type == taskTypeAgent {
			st, k, err := convlog.ReadShape(context.Background(), s.ws.s.fsys, taskItemsName(s.ws.dir, s.st.ID, id), id)
			if err != nil {
				return err
			}
			n, bytes = k, st.Bytes
		}
		if err := tl.EndHeld(id, r.Type, n, bytes); err != nil {
			return err
		}
		s.taskWorkEnded(id, TaskSettled)
	}
	return nil
}

// Append adds an item to the task's transcript, after its head unless
// Parent is set, as Session.Append does for the session (payloads over
// 16 KiB as objects, attachments stored). It is written, not synced.
func (t *Task) Append(ctx context.Context, it Item) (Item, error) {
	ws := t.s.ws
	var line *itemLine
	err := t.run.Append(func(st *state) (any, error) {
		store := func(a []Attachment) ([]Attachment, error) { return ws.storeAttachments(ctx, a) }
		l, err := st.TranscriptLine(ctx, &it, t.run.ID(), newItemID(), mkTime(ws.s.Now()), store, ws.objects())
		if err != nil {
			return nil, err
		}
		line = l
		return l, nil
	}, func(st *state) int64 { return st.FoldShape(line, it.Text) })
	if err != nil {
		return Item{}, t.s.taskError(err, t.run.ID())
	}
	return it, nil
}

// Sync makes the items appended so far durable.
func (t *Task) Sync() error { return t.run.Sync() }

// End records that the task settled (its result delivered: TaskSettled) or
// was cancelled (TaskCancelled), syncing its transcript first.
func (t *Task) End(ctx context.Context, state string) error {
	if state != TaskSettled && state != TaskCancelled && state != TaskBlocked {
		return fmt.Errorf("%w: a task ends settled, cancelled or blocked, not %q", ErrBadInput, state)
	}
	return t.s.taskError(t.s.endTask(t.run, state), t.run.ID())
}

// Tasks in the ledger of background work (engine/internal/bgwork, Known):
// every task the records keep is listed there too, so task_control lists,
// shows, cancels and stops it as any work. The records come first; the
// ledger follows each start, continue and end, and when it is opened it
// puts right what it missed (Ledger.Agree).

// taskLedger is the session's ledger, opened (and made to agree with the
// task records) on first use.
func (s *Session) taskLedger() (*bgwork.Ledger, error) {
	r, err := s.runner()
	if err != nil {
		return nil, err
	}
	return r.Ledger(), nil
}

// knownTask is task id as tl's records say it stands, for Ledger.Agree.
func (s *Session) knownTask(tl *taskLog, id string) []bgwork.Known {
	recs, err := tl.Records()
	return bgwork.KnownTask(recs, err, id)
}

// endTask ends run in state, and in the ledger with it.
func (s *Session) endTask(run *tasks.Run[*state], state string) error {
	if err := run.End(state); err != nil {
		return err
	}
	s.taskWorkEnded(run.ID(), state)
	return nil
}

// taskWorkEnded settles task id, whose record ended in state, in the
// ledger; it delivers nothing (its caller has its result). A ledger that
// cannot say so now is put right when it is next opened.
func (s *Session) taskWorkEnded(id, state string) {
	r, err := s.runner()
	if err == nil {
		err = r.Ledger().End(id, bgwork.Result{Outcome: bgwork.TaskOutcome(state)})
	}
	if err != nil && !errors.Is(err, bgwork.ErrNotFound) && !errors.Is(err, ErrRefused) {
		s.noticef("task %s ended, but the list of background work could not say so yet: %v", id, err)
	}
}

// endTaskNamed ends running task id in state.
func (s *Session) endTaskNamed(id, state string) error {
	t, err := s.Task(context.Background(), id)
	if err != nil {
		return err
	}
	return t.End(context.Background(), state)
}
