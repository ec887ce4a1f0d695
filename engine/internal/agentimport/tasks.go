package agentimport

import (
	"context"
	"fmt"
	"time"

	"cairn/engine/ids"
	"cairn/engine/internal/convlog"
	"cairn/engine/internal/durable"
	"cairn/engine/internal/layout"
	"cairn/engine/internal/tasks"
	"cairn/internal/timefmt"
	"cairn/internal/vfs"
	"cairn/journal"
)

// TaskEnv is what writing a source's tasks needs of the engine, beside
// what Lines needs.
type TaskEnv struct {
	Env
	FS         vfs.FS
	Clock      func() time.Time                                                   // the journals' clock
	Dir        string                                                             // the workspace folder
	Path       string                                                             // the workspace's directory
	Session    string                                                             // the session's id
	Records    []*tasks.Record                                                    // the session's task records as they stand
	Transcript func(ctx context.Context, name, id string) (*convlog.State, error) // folds a transcript
}

// WriteTasks writes the records and transcripts of src's tasks whose call
// the session holds (or will hold: calls, the ids of the call items of
// this import), before the session's lines name them (idOf: the id of the
// item of a key of src): a new task gets a start and an end line and a
// transcript; a task imported before gets only the items it does not hold
// yet. It returns the call item ids that name a task, and the items added.
func WriteTasks(ctx context.Context, env TaskEnv, src *Source, calls map[string]bool, idOf func(string) string) (map[string]string, int, error) {
	named := map[string]string{}
	if len(src.Tasks) == 0 {
		return named, 0, nil
	}
	have := map[string]bool{}
	for _, r := range env.Records {
		have[r.ID] = true
	}
	fsys, id := env.FS, env.Session
	opts := journal.Options{Sync: journal.SyncManual, Now: env.Clock}
	added := 0
	for _, t := range src.Tasks {
		call := idOf(t.CallKey)
		if !calls[call] || !ids.Valid(t.ID) {
			continue
		}
		named[call] = t.ID
		name := tasks.TranscriptName(env.Dir, id, t.ID)
		st := convlog.NewState(t.ID, env.Path)
		if have[t.ID] {
			var err error
			if st, err = env.Transcript(ctx, name, t.ID); err != nil {
				return nil, 0, err
			}
		}
		sub := &Source{Agent: src.Agent, SourceID: src.SourceID + "/" + t.ID, Items: t.Items, DryRun: true}
		lines, _, err := Lines(ctx, env.Env, st, id+"/"+t.ID, sub, &Result{})
		if err != nil {
			return nil, 0, err
		}
		if src.DryRun {
			added += len(lines)
			continue
		}
		if err := durable.EnsureDir(fsys, tasks.Dir(env.Dir, id), layout.Workspaces); err != nil {
			return nil, 0, fmt.Errorf("engine: task folder: %w", err)
		}
		// The payloads were not stored by the dry pass: store them now.
		for _, l := range lines {
			if l.Text != nil && len(*l.Text) > convlog.PayloadInline {
				p, err := convlog.WritePayload(ctx, env.Objects, *l.Text)
				if err != nil {
					return nil, 0, err
				}
				l.Text, l.Payload = nil, p
			}
		}
		at := timefmt.Mk(t.At)
		if err := writeTranscript(fsys, name, opts, have[t.ID], tasks.Header{V: 1, Kind: tasks.KindHeader, Task: t.ID, Session: id, At: at}, lines); err != nil {
			return nil, 0, fmt.Errorf("engine: import task %s: %w", t.ID, err)
		}
		added += len(lines)
		if have[t.ID] {
			continue
		}
		n := len(lines)
		recs := []any{
			&tasks.Line{V: 1, Kind: "start", Task: t.ID, Type: tasks.TypeAgent, Label: tasks.CutLabel(t.Label), Call: call, At: at, Held: true},
			&tasks.Line{V: 1, Kind: "end", Task: t.ID, State: tasks.Settled, At: at, Items: &n},
		}
		if err := appendSynced(fsys, tasks.RecordsName(env.Dir, id), opts, recs); err != nil {
			return nil, 0, fmt.Errorf("engine: import task %s: %w", t.ID, err)
		}
		have[t.ID] = true
	}
	return named, added, nil
}

// writeTranscript makes a task's transcript, header and lines, or appends
// lines to the one there (had).
func writeTranscript(fsys vfs.FS, name string, opts journal.Options, had bool, h tasks.Header, lines []*convlog.Line) error {
	if !had {
		out := []any{h}
		for _, l := range lines {
			out = append(out, l)
		}
		wr, err := journal.Create(fsys, name, out, opts)
		if err != nil {
			return err
		}
		wr.Close() // made whole by its rename: nothing is left to sync
		return nil
	}
	if len(lines) == 0 {
		return nil
	}
	out := make([]any, len(lines))
	for i, l := range lines {
		out[i] = l
	}
	return appendSynced(fsys, name, opts, out)
}

// appendSynced appends lines to the journal name and syncs it.
func appendSynced(fsys vfs.FS, name string, opts journal.Options, lines []any) error {
	wr, _, err := journal.OpenWriter(fsys, name, opts)
	if err != nil {
		return err
	}
	for _, l := range lines {
		if err = wr.Append(l); err != nil {
			break
		}
	}
	if err == nil {
		err = wr.Sync()
	}
	if cerr := wr.Close(); err == nil {
		err = cerr
	}
	return err
}
