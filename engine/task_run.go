package engine

// A running task: its transcript appended to, synced, ended; the records
// journal's end lines and the task log closed with its session (the
// format is task.go's).

import (
	"context"
	"fmt"

	"cairn/journal"
)

// Append adds an item to the task's transcript, after its head unless
// Parent is set, as Session.Append does for the session (payloads over
// 16 KiB as objects, attachments stored). It is written, not synced.
func (t *Task) Append(ctx context.Context, it Item) (Item, error) {
	tl := t.log
	tl.mu.Lock()
	defer tl.mu.Unlock()
	switch {
	case t.w == nil:
		return Item{}, fmt.Errorf("%w: %s is a shell job: it has no transcript", ErrBadInput, t.id)
	case t.done || tl.closed:
		return Item{}, refusedf("task %s is not running", t.id)
	case !it.Type.valid():
		return Item{}, fmt.Errorf("%w: item type %q", ErrBadInput, it.Type)
	case it.Task != "":
		return Item{}, fmt.Errorf("%w: a task's transcript does not start tasks of its own", ErrBadInput)
	}
	st := t.st
	if it.Parent == "" {
		it.Parent = st.head
	} else if st.items[it.Parent] == nil {
		return Item{}, notFoundf("no item %q in task %s", it.Parent, t.id)
	}
	if err := st.checkLinks(&it); err != nil {
		return Item{}, err
	}
	if it.Quarantined {
		it.Text, it.Attachments = "", nil
	}
	ws := tl.s.ws
	atts, err := ws.storeAttachments(ctx, it.Attachments)
	if err != nil {
		return Item{}, err
	}
	it.ID, it.At, it.Attachments = newItemID(), mkTime(ws.s.Now()), atts
	l := &itemLine{V: 1, Kind: kindItem, ID: it.ID, Type: it.Type, At: &it.At, Tool: it.Tool, Call: it.Call,
		Status: it.Status, Quarantined: it.Quarantined, Slot: it.Slot, Replaces: it.Replaces, Outputs: it.Outputs,
		Attachments: attachmentsOnDisk(atts)}
	if it.Parent != "" {
		l.Parent = &it.Parent
	}
	switch {
	case it.Quarantined:
	case len(it.Text) > payloadInline:
		p, err := writePayload(ctx, ws.objects(), it.Text)
		if err != nil {
			return Item{}, err
		}
		l.Payload = p
	default:
		l.Text = &it.Text
	}
	if err := t.w.Append(l); err != nil {
		// A broken writer is reopened, its torn line cut, by the next Append.
		t.w.Close()
		if w, _, rerr := journal.OpenWriter(tl.fsys, t.w.Name(), journal.Options{Sync: journal.SyncManual, Now: ws.s.now}); rerr == nil {
			t.w = w
		}
		return Item{}, fmt.Errorf("engine: task %s: %w", t.id, err)
	}
	t.lines++
	// The shape only: the transcript's texts are read back on demand.
	text := l.Text
	l.Text = nil
	st.apply(l)
	l.Text = text
	if l.Payload == nil {
		st.bytes += int64(len(it.Text))
	}
	return it, nil
}

// Sync makes the items appended so far durable.
func (t *Task) Sync() error {
	t.log.mu.Lock()
	defer t.log.mu.Unlock()
	if t.w == nil || t.done {
		return nil
	}
	return t.w.Sync()
}

// End records that the task settled (its result delivered: TaskSettled) or
// was cancelled (TaskCancelled), syncing its transcript first.
func (t *Task) End(ctx context.Context, state string) error {
	if state != TaskSettled && state != TaskCancelled {
		return fmt.Errorf("%w: a task ends settled or cancelled, not %q", ErrBadInput, state)
	}
	t.log.mu.Lock()
	defer t.log.mu.Unlock()
	if t.done {
		return refusedf("task %s already ended", t.id)
	}
	if t.log.closed {
		return fmt.Errorf("engine: session %s is closed", t.log.s.st.id)
	}
	return t.endLocked(state)
}

// endLocked writes the end line; t.log.mu is held.
func (t *Task) endLocked(state string) error {
	tl := t.log
	l := &taskLine{V: 1, Kind: "end", Task: t.id, State: state, At: mkTime(tl.s.ws.s.Now())}
	if t.w != nil {
		if err := t.w.Sync(); err != nil {
			return fmt.Errorf("engine: task %s: %w", t.id, err)
		}
	}
	if t.st != nil {
		n, b := t.lines, t.st.bytes
		l.Items, l.Bytes = &n, &b
	}
	if err := tl.append(l); err != nil {
		return err
	}
	t.done = true
	if t.w != nil {
		t.w.Close()
	}
	delete(tl.running, t.id)
	return nil
}

// endTaskOnResult settles task id when a tool_result answering its call
// was appended (its result delivered). s.mu is held. A task not running
// here or held is left as it reads.
func (s *Session) endTaskOnResult(ctx context.Context, id string) error {
	tl, err := s.taskLogLocked(ctx)
	if err != nil {
		return err
	}
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if t := tl.running[id]; t != nil {
		return t.endLocked(TaskSettled)
	}
	recs, err := tl.records()
	if err != nil {
		return err
	}
	for _, r := range recs {
		if r.ID == id && r.State == TaskRunning && r.held {
			t := &Task{log: tl, id: id, kind: r.Type, held: true}
			if r.Type == TaskTypeAgent {
				if t.st, t.lines, err = foldShape(context.Background(), tl.fsys, taskItemsName(s.ws.dir, s.st.id, id), id); err != nil {
					return err
				}
			}
			return t.endLocked(TaskSettled)
		}
	}
	return nil
}

// close ends the log with its session: the tasks this process runs are
// cancelled (the runtime has drained them; what it did not is stopped
// here), held ones keep running, their transcripts synced.
func (tl *taskLog) close() {
	if tl == nil {
		return
	}
	tl.mu.Lock()
	defer tl.mu.Unlock()
	for _, t := range tl.running {
		if t.held {
			if t.w != nil {
				t.w.Close()
			}
			continue
		}
		t.endLocked(TaskCancelled)
	}
	tl.closed = true
	if tl.w != nil {
		tl.w.Close()
		tl.w = nil
	}
	tl.s.ws.s.taskLive.CompareAndSwap(tl.name, tl, taskClosed{})
}

// live reports whether the record of task started with owner token owner
// is running in this log's process and session.
func (tl *taskLog) live(owner, task string) bool {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if tl.closed || owner != tl.token || tl.running[task] == nil {
		return false
	}
	// After a simulated power loss the owner's lock is gone with it.
	if l := tl.s.lock; l != nil {
		if f := l.File(); f != nil {
			if _, err := f.Stat(); err != nil {
				return false
			}
		}
	}
	return true
}
