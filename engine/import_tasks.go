package engine

import (
	"context"

	"cairn/engine/internal/agentimport"
	"cairn/engine/internal/convlog"
)

// importTasks writes the records and transcripts of src's tasks whose call
// the session holds (agentimport.WriteTasks): the call item ids that name
// a task, and the items added.
func (w *Workspace) importTasks(ctx context.Context, id string, src *ImportSource, calls map[string]bool, idOf func(string) string) (map[string]string, int, error) {
	if len(src.Tasks) == 0 {
		return map[string]string{}, 0, nil
	}
	recs, err := w.taskRecords(id)
	if err != nil {
		return nil, 0, err
	}
	fold := func(ctx context.Context, name, task string) (*state, error) {
		st, _, err := convlog.ReadShape(ctx, w.s.fsys, name, task)
		return st, err
	}
	return agentimport.WriteTasks(ctx, agentimport.TaskEnv{Env: w.importEnv(), FS: w.s.fsys, Clock: w.s.now, Dir: w.dir, Path: w.path,
		Session: id, Records: recs, Transcript: fold}, src, calls, idOf)
}
