package engine

// Reading a session's task records and sub-agent transcripts without
// owning it, and deleting them with the session; the writer side is
// task.go. Nothing here runs when a session opens.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"cairn/engine/ids"
	"cairn/internal/vfs"
	"cairn/journal"
)

// TaskRecord is one task or background shell job of a session.
type TaskRecord struct {
	ID    string `json:"id"`
	Type  string `json:"type"` // TaskTypeAgent or TaskTypeShell
	Label string `json:"label"`
	Cmd   string `json:"cmd,omitempty"`
	State string `json:"state"` // TaskRunning, TaskSettled, TaskCancelled or TaskInterrupted
	// Calls are the tool_call items that started and continued it, in order.
	Calls      []string `json:"calls"`
	Background bool     `json:"background,omitempty"`
	StartedAt  Time     `json:"started_at"`         // the first start
	EndedAt    *Time    `json:"ended_at,omitempty"` // the last end, when it is not running
	// Items and Bytes count the transcript's item lines and payload bytes.
	Items int   `json:"items"`
	Bytes int64 `json:"bytes"`

	held    bool
	pid     int
	owner   string
	lastAt  Time  // the latest start or continue
	froms   []int // per call: the item lines the transcript held when it began
	counted bool  // Items and Bytes come from the last end line
	raw     [][]byte
}

// readTaskRecords folds a records journal into records in start order,
// State "" for those whose last start or continue has no end yet. A
// missing journal is empty; lines that make no sense are skipped.
func readTaskRecords(fsys vfs.FS, name string) ([]*TaskRecord, error) {
	var recs []*TaskRecord
	by := map[string]*TaskRecord{}
	_, err := journal.Read(fsys, name, func(b []byte) error {
		var l taskLine
		if json.Unmarshal(b, &l) != nil || l.V != 1 || !ids.Valid(l.Task) {
			return nil
		}
		r := by[l.Task]
		switch l.Kind {
		case "start":
			if r != nil {
				return nil // an id is started once
			}
			r = &TaskRecord{ID: l.Task, Type: l.Type, Label: l.Label, Cmd: l.Cmd, Background: l.Background, StartedAt: l.At,
				Calls: []string{}}
			if r.Type != TaskTypeShell {
				r.Type = TaskTypeAgent
			}
			by[l.Task] = r
			recs = append(recs, r)
			r.froms = append(r.froms, 0)
		case "continue":
			if r == nil || r.State == "" {
				return nil // nothing to continue, or it is still running
			}
			from := 0
			if l.From != nil {
				from = *l.From
			}
			r.froms = append(r.froms, from)
		case "end":
			if r == nil || r.State != "" {
				return nil
			}
			switch l.State {
			case TaskSettled, TaskCancelled, TaskInterrupted:
			default:
				return nil
			}
			r.State, r.EndedAt = l.State, &l.At
			r.counted = l.Items != nil
			if l.Items != nil {
				r.Items = *l.Items
			}
			if l.Bytes != nil {
				r.Bytes = *l.Bytes
			}
			r.raw = append(r.raw, append([]byte(nil), b...))
			return nil
		default:
			return nil
		}
		r.State, r.EndedAt, r.counted = "", nil, false
		r.held, r.pid, r.owner, r.lastAt = l.Held, l.PID, l.Owner, l.At
		r.Calls = append(r.Calls, l.Call)
		r.raw = append(r.raw, append([]byte(nil), b...))
		return nil
	})
	if err != nil && !vfs.IsNotExist(err) {
		return nil, fmt.Errorf("engine: read task records: %w", err)
	}
	return recs, nil
}

// taskRecords reads the records of session with their states settled: a
// record without an end is running while its owner runs it (or it is
// held), and interrupted otherwise.
func (w *Workspace) taskRecords(session string) ([]*TaskRecord, error) {
	name := taskRecordsName(w.dir, session)
	recs, err := readTaskRecords(w.s.fsys, name)
	if err != nil {
		return nil, err
	}
	var (
		owner    int
		openedAt Time
		looked   bool
	)
	for _, r := range recs {
		if r.State != "" {
			continue
		}
		running := r.held
		if !running && r.pid == os.Getpid() {
			if v, ok := w.s.taskLive.Load(name); ok {
				tl, open := v.(*taskLog)
				running = open && tl.live(r.owner, r.ID)
				r.State = map[bool]string{true: TaskRunning, false: TaskInterrupted}[running]
				continue
			}
		}
		if !running {
			if !looked {
				owner, looked = w.ownerPID(session), true
				if rec, err := readRecord(w.s.fsys, w.dir, session); err == nil {
					openedAt = rec.OpenedAt
				}
			}
			// A start from before the owner opened the session is not
			// its own, even under the same pid (a pid reused after a crash).
			running = r.pid > 0 && r.pid == owner && !openedAt.After(r.lastAt.Time)
		}
		r.State = map[bool]string{true: TaskRunning, false: TaskInterrupted}[running]
	}
	return recs, nil
}

// Tasks lists session's tasks and background shell jobs in start order,
// settled ones included (they are archived with the session). It needs no
// ownership and reads no transcript of a task that ended.
func (w *Workspace) Tasks(ctx context.Context, session string) ([]TaskRecord, error) {
	if err := w.checkSession(session); err != nil {
		return nil, err
	}
	recs, err := w.taskRecords(session)
	if err != nil {
		return nil, err
	}
	out := make([]TaskRecord, 0, len(recs))
	for _, r := range recs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if r.Type == TaskTypeAgent && !r.counted {
			// Running or cut short: count what its transcript holds now.
			if st, n, err := foldShape(ctx, w.s.fsys, taskItemsName(w.dir, session, r.ID), r.ID); err == nil {
				r.Items, r.Bytes = n, st.bytes
			}
		}
		c := *r
		c.raw, c.froms = nil, nil
		out = append(out, c)
	}
	return out, nil
}

// checkSession refuses a session id that is not one, or names no session.
func (w *Workspace) checkSession(session string) error {
	if !validSessionID(session) {
		return fmt.Errorf("%w: %q is not a session id", ErrBadInput, session)
	}
	if _, err := w.s.fsys.Stat(itemsName(w.dir, session)); err != nil {
		if vfs.IsNotExist(err) {
			return fmt.Errorf("%w: %s in %s", ErrNotFound, session, w.path)
		}
		return err
	}
	return nil
}

// TaskView is a sub-agent's transcript read on demand, its texts hydrated.
type TaskView struct {
	Record TaskRecord
	st     *state
}

// Transcript is the task's head path, oldest first.
func (v *TaskView) Transcript() []Item { return copyItems(v.st.headPath()) }

// AllItems is every item of the transcript in the order written.
func (v *TaskView) AllItems() []Item { return copyItems(v.st.all()) }

// ReadTask reads task's transcript of session, its payloads read back,
// without ownership. The eager-load ceiling counts it as it counts a
// session: over it, it is refused with *LoadLimitError.
func (w *Workspace) ReadTask(ctx context.Context, session, task string) (*TaskView, error) {
	if err := w.checkSession(session); err != nil {
		return nil, err
	}
	if !ids.Valid(task) {
		return nil, fmt.Errorf("%w: %q is not a task id", ErrBadInput, task)
	}
	recs, err := w.taskRecords(session)
	if err != nil {
		return nil, err
	}
	var rec *TaskRecord
	for _, r := range recs {
		if r.ID == task {
			rec = r
		}
	}
	if rec == nil {
		return nil, notFoundf("no task %q in session %s", task, session)
	}
	v := &TaskView{st: newState(task, w.path)}
	if rec.Type == TaskTypeAgent {
		if v.st, err = w.foldFile(ctx, task, taskItemsName(w.dir, session, task), foldOptions{hydrate: true, limit: w.s.eagerLimit()}); err != nil {
			return nil, err
		}
		if !rec.counted {
			rec.Items, rec.Bytes = len(v.st.order), v.st.bytes
		}
	}
	v.Record = *rec
	v.Record.raw, v.Record.froms = nil, nil
	return v, nil
}

// foldShape folds the transcript name without its texts (the shape a
// writer needs: ids, parents, the head, the payload bytes) and counts its
// item lines.
func foldShape(ctx context.Context, fsys vfs.FS, name, id string) (*state, int, error) {
	st := newState(id, "")
	n := 0
	_, err := journal.Read(fsys, name, func(b []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		var l itemLine
		if json.Unmarshal(b, &l) != nil || l.V != 1 || l.Kind != kindItem {
			return nil
		}
		n++
		st.apply(&l)
		if it := st.items[l.ID]; it != nil {
			it.Text = ""
		}
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("engine: read task %s: %w", id, err)
	}
	st.notAfter = time.Time{}
	return st, n, nil
}

// DeleteTasks removes session's task records and transcripts (with the
// session). The objects they name stay in the workspace's store.
func (w *Workspace) DeleteTasks(ctx context.Context, session string) error {
	if !validSessionID(session) {
		return fmt.Errorf("%w: %q is not a session id", ErrBadInput, session)
	}
	if err := removeFolder(ctx, w.s.fsys, taskDir(w.dir, session)); err != nil {
		return fmt.Errorf("engine: delete tasks of %s: %w", session, err)
	}
	return nil
}
