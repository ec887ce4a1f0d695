package tasks

import (
	"encoding/json"
	"fmt"
	"strings"

	"cairn/engine/ids"
	"cairn/engine/internal/errs"
	"cairn/internal/timefmt"
	"cairn/internal/vfs"
	"cairn/journal"
)

// Record is one task or background shell job of a session, as Read folds
// its lines.
type Record struct {
	ID    string
	Type  string // TypeAgent or TypeShell
	Label string
	Cmd   string
	// State is Settled, Cancelled, Blocked or Interrupted from the last end line,
	// or "" while the last start or continue has none (Running or
	// Interrupted: Log.Records, or the reader, decides).
	State string
	// Calls are the tool_call items that started and continued it, in order.
	Calls      []string
	Background bool
	StartedAt  timefmt.Time  // the first start
	EndedAt    *timefmt.Time // the last end, when it is not running
	// Items and Bytes count the transcript's item lines and payload
	// bytes, as the last end line says (Counted).
	Items   int
	Bytes   int64
	Counted bool

	// Held, PID, Owner and LastAt are those of the latest start or
	// continue line.
	Held   bool
	PID    int
	Owner  string
	LastAt timefmt.Time

	froms []int    // per call: the item lines the transcript held when it began
	raw   [][]byte // its lines, for a fork's copy
}

// Read folds records journal name into records in start order, State ""
// for those whose last start or continue has no end yet. A missing
// journal is empty; lines that make no sense are skipped.
func Read(fsys vfs.FS, name string) ([]*Record, error) {
	var recs []*Record
	by := map[string]*Record{}
	_, err := journal.Read(fsys, name, func(b []byte) error {
		var l Line
		if json.Unmarshal(b, &l) != nil || l.V != 1 || !ids.Valid(l.Task) {
			return nil
		}
		r := by[l.Task]
		switch l.Kind {
		case "start":
			if r != nil {
				return nil // an id is started once
			}
			r = &Record{ID: l.Task, Type: l.Type, Label: l.Label, Cmd: l.Cmd, Background: l.Background, StartedAt: l.At,
				Calls: []string{}}
			if r.Type != TypeShell {
				r.Type = TypeAgent
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
			case Settled, Cancelled, Blocked, Interrupted:
			default:
				return nil
			}
			r.State, r.EndedAt = l.State, &l.At
			r.Counted = l.Items != nil
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
		r.State, r.EndedAt, r.Counted = "", nil, false
		r.Held, r.PID, r.Owner, r.LastAt = l.Held, l.PID, l.Owner, l.At
		r.Calls = append(r.Calls, l.Call)
		r.raw = append(r.raw, append([]byte(nil), b...))
		return nil
	})
	if err != nil && !vfs.IsNotExist(err) {
		return nil, fmt.Errorf("tasks: read task records: %w", err)
	}
	return recs, nil
}

// RefuseRunning refuses to what (revert, unrevert) a session's files while
// any of its tasks recs is running (seed 000: active subagents and shell
// commands block a revert): between its calls a task holds no call lock,
// yet it may be about to change the files a revert puts back.
func RefuseRunning(what string, recs []*Record) error {
	var run []string
	for _, r := range recs {
		if r.State == Running {
			run = append(run, r.ID)
		}
	}
	switch len(run) {
	case 0:
		return nil
	case 1:
		return errs.Refusedf("cannot %s files: task %s is still running; let it end or cancel it (cairn task SESSION %s --cancel)", what, run[0], run[0])
	}
	return errs.Refusedf("cannot %s files: tasks %s are still running; let them end or cancel them", what, strings.Join(run, ", "))
}

// Summary is one task or background shell job of a session, as a reader
// of the session sees it.
type Summary struct {
	ID    string `json:"id"`
	Type  string `json:"type"` // TypeAgent or TypeShell
	Label string `json:"label"`
	Cmd   string `json:"cmd,omitempty"`
	State string `json:"state"` // Running, Settled, Cancelled, Blocked or Interrupted
	// Calls are the tool_call items that started and continued it, in order.
	Calls      []string      `json:"calls"`
	Background bool          `json:"background,omitempty"`
	StartedAt  timefmt.Time  `json:"started_at"`         // the first start
	EndedAt    *timefmt.Time `json:"ended_at,omitempty"` // the last end, when it is not running
	// Items and Bytes count the transcript's item lines and payload bytes.
	Items int   `json:"items"`
	Bytes int64 `json:"bytes"`
}

// Summary is what a reader sees of r.
func (r *Record) Summary() Summary {
	return Summary{ID: r.ID, Type: r.Type, Label: r.Label, Cmd: r.Cmd, State: r.State, Calls: r.Calls,
		Background: r.Background, StartedAt: r.StartedAt, EndedAt: r.EndedAt, Items: r.Items, Bytes: r.Bytes}
}

// Find is the record of task id in recs, or nil (Read makes one per id).
func Find(recs []*Record, id string) *Record {
	for _, r := range recs {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// Start says what a task call starts.
type Start struct {
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

// Continuable is the record of task id in recs (of session) when a new
// call may continue it: an agent's task that settled, was cancelled or
// blocked. Else a refusal says why, or no such task is ErrNotFound.
func Continuable(recs []*Record, id, session string) (*Record, error) {
	rec := Find(recs, id)
	switch {
	case rec == nil:
		return nil, errs.NotFoundf("no task %q in session %s", id, session)
	case rec.Type != TypeAgent:
		return nil, errs.Refusedf("%s is a shell job: shell jobs are never resumed; run a new command", rec.ID)
	case rec.State == Running:
		return nil, errs.Refusedf("task %s is running: only a settled task can be continued", rec.ID)
	case rec.State == Interrupted:
		return nil, errs.Refusedf("task %s was interrupted (its outcome is unknown) and is never resumed; start a new task", rec.ID)
	}
	return rec, nil
}
