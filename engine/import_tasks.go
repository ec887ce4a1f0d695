package engine

import (
	"context"
	"fmt"

	"cairn/engine/ids"
	"cairn/engine/internal/agentimport"
	"cairn/engine/internal/convlog"
	"cairn/engine/internal/tasks"
	"cairn/journal"
)

// importTasks writes the records and transcripts of src's tasks whose call
// st holds (or will hold: calls, the ids of the call items of this import),
// before the session's lines name them (idOf: the id of the item of a
// key of src): a new task gets a start and an end
// line and a transcript; a task imported before gets only the items it
// does not hold yet. It returns the call item ids that name a task, and
// the items added.
func (w *Workspace) importTasks(ctx context.Context, id string, src *ImportSource, calls map[string]bool, idOf func(string) string) (map[string]string, int, error) {
	named := map[string]string{}
	if len(src.Tasks) == 0 {
		return named, 0, nil
	}
	recs, err := w.taskRecords(id)
	if err != nil {
		return nil, 0, err
	}
	have := map[string]bool{}
	for _, r := range recs {
		have[r.ID] = true
	}
	fsys := w.s.fsys
	added := 0
	for _, t := range src.Tasks {
		call := idOf(t.CallKey)
		if !calls[call] || !ids.Valid(t.ID) {
			continue
		}
		named[call] = t.ID
		name := taskItemsName(w.dir, id, t.ID)
		st := newState(t.ID, w.path)
		if have[t.ID] {
			if st, _, err = foldShape(ctx, fsys, name, t.ID); err != nil {
				return nil, 0, err
			}
		}
		sub := &ImportSource{Agent: src.Agent, SourceID: src.SourceID + "/" + t.ID, Items: t.Items, DryRun: true}
		res := &ImportResult{}
		lines, _, err := agentimport.Lines(ctx, w.importEnv(), st, id+"/"+t.ID, sub, res)
		if err != nil {
			return nil, 0, err
		}
		if src.DryRun {
			added += len(lines)
			continue
		}
		if err := ensureDir(fsys, taskDir(w.dir, id)); err != nil {
			return nil, 0, fmt.Errorf("engine: task folder: %w", err)
		}
		// The payloads were not stored by the dry pass: store them now.
		for _, l := range lines {
			if l.Text != nil && len(*l.Text) > payloadInline {
				p, err := convlog.WritePayload(ctx, w.objects(), *l.Text)
				if err != nil {
					return nil, 0, err
				}
				l.Text, l.Payload = nil, p
			}
		}
		at := mkTime(t.At)
		if !have[t.ID] {
			out := []any{tasks.Header{V: 1, Kind: tasks.KindHeader, Task: t.ID, Session: id, At: at}}
			for _, l := range lines {
				out = append(out, l)
			}
			wr, err := journal.Create(fsys, name, out, journal.Options{Sync: journal.SyncManual, Now: w.s.now})
			if err != nil {
				return nil, 0, fmt.Errorf("engine: import task %s: %w", t.ID, err)
			}
			wr.Close()
		} else if len(lines) > 0 {
			wr, _, err := journal.OpenWriter(fsys, name, journal.Options{Sync: journal.SyncManual, Now: w.s.now})
			if err != nil {
				return nil, 0, fmt.Errorf("engine: import task %s: %w", t.ID, err)
			}
			for _, l := range lines {
				if err := wr.Append(l); err != nil {
					wr.Close()
					return nil, 0, err
				}
			}
			err = wr.Sync()
			if cerr := wr.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return nil, 0, fmt.Errorf("engine: import task %s: %w", t.ID, err)
			}
		}
		added += len(lines)
		if !have[t.ID] {
			n := len(lines)
			rl, _, err := journal.OpenWriter(fsys, taskRecordsName(w.dir, id), journal.Options{Sync: journal.SyncManual, Now: w.s.now})
			if err != nil {
				return nil, 0, err
			}
			err = rl.Append(&tasks.Line{V: 1, Kind: "start", Task: t.ID, Type: taskTypeAgent, Label: tasks.CutLabel(t.Label), Call: call, At: at, Held: true})
			if err == nil {
				err = rl.Append(&tasks.Line{V: 1, Kind: "end", Task: t.ID, State: TaskSettled, At: at, Items: &n})
			}
			if err == nil {
				err = rl.Sync()
			}
			rl.Close()
			if err != nil {
				return nil, 0, fmt.Errorf("engine: import task %s: %w", t.ID, err)
			}
			have[t.ID] = true
		}
	}
	return named, added, nil
}
