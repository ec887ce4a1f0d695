package engine

// Reading a session's task records and sub-agent transcripts without
// owning it, copying them into a fork, and deleting them with the
// session; the writer side is task.go. Nothing here runs when a session
// opens.

import (
	"context"
	"fmt"

	"cairn/engine/ids"
	"cairn/engine/internal/convlog"
	"cairn/engine/internal/tasks"
)

// TaskRecord is a task's or shell job's record (tasks.Summary).
type TaskRecord = tasks.Summary

func taskRecord(r *tasks.Record) TaskRecord { return r.Summary() }

// taskRecords reads the records of session with their states settled: a
// record without an end is running while its owner runs it (or it is
// held), and interrupted otherwise.
func (w *Workspace) taskRecords(session string) ([]*tasks.Record, error) {
	name := taskRecordsName(w.dir, session)
	recs, err := tasks.Read(w.s.fsys, name)
	if err != nil {
		return nil, err
	}
	owner := w.runOwner(session)
	for _, r := range recs {
		if r.State != "" {
			continue
		}
		running := r.Held || owner.Running(r.PID, r.LastAt.Time, func() (bool, bool) {
			v, ok := w.s.taskLive.Load(name)
			if !ok {
				return false, false
			}
			tl, open := v.(*taskLog)
			return open && tl.Live(r.Owner, r.ID), true
		})
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
		if r.Type == taskTypeAgent && !r.Counted {
			// Running or cut short: count what its transcript holds now.
			if st, n, err := convlog.ReadShape(ctx, w.s.fsys, taskItemsName(w.dir, session, r.ID), r.ID); err == nil {
				r.Items, r.Bytes = n, st.Bytes
			}
		}
		out = append(out, taskRecord(r))
	}
	return out, nil
}

// TaskView is a sub-agent's transcript read on demand, its texts hydrated.
type TaskView struct {
	Record TaskRecord
	st     *state
}

// Transcript is the task's head path, oldest first.
func (v *TaskView) Transcript() []Item { return copyItems(v.st.HeadPath()) }

// AllItems is every item of the transcript in the order written.
func (v *TaskView) AllItems() []Item { return copyItems(v.st.All()) }

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
	rec := tasks.Find(recs, task)
	if rec == nil {
		return nil, notFoundf("no task %q in session %s", task, session)
	}
	v := &TaskView{st: newState(task, w.path)}
	if rec.Type == taskTypeAgent {
		if v.st, err = w.foldFile(ctx, task, taskItemsName(w.dir, session, task), foldOptions{hydrate: true, limit: w.s.eagerLimit()}); err != nil {
			return nil, err
		}
		if !rec.Counted {
			rec.Items, rec.Bytes = len(v.st.Order), v.st.Bytes
		}
	}
	v.Record = taskRecord(rec)
	return v, nil
}

// copyTasks gives fork child the sub-agent tasks reachable from its fork
// point: those with a call on the kept path (tasks.Copy). It returns the
// ids copied and the tool outputs the copied transcripts refer to.
func (w *Workspace) copyTasks(ctx context.Context, parent, child string, keep []*Item) (copied, outputs []string, err error) {
	onPath := map[string]bool{}
	for _, it := range keep {
		if it.Task != "" {
			onPath[it.ID] = true
		}
	}
	if len(onPath) == 0 {
		return nil, nil, nil
	}
	recs, err := w.taskRecords(parent)
	if err != nil {
		return nil, nil, err
	}
	return tasks.Copy(ctx, w.s.fsys, recs, taskDir(w.dir, parent), taskDir(w.dir, child), onPath, mkTime(w.s.Now()))
}
