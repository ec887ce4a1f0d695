package tasks

import (
	"errors"
	"fmt"
	"os"
	"path"
	"sync"
	"time"

	"cairn/engine/ids"
	"cairn/engine/internal/shell"
	"cairn/internal/timefmt"
	"cairn/internal/vfs"
	"cairn/journal"
)

// Errors of a Log, tested with errors.Is; the engine words them for its
// callers.
var (
	// ErrClosed: the log was closed with its session.
	ErrClosed = errors.New("tasks: the session is closed")
	// ErrNotRunning: the run ended, or its log was closed.
	ErrNotRunning = errors.New("tasks: the task is not running")
	// ErrNoTranscript: a shell job has no transcript to append to.
	ErrNoTranscript = errors.New("tasks: a shell job has no transcript")
	// ErrEnded: the run ended already.
	ErrEnded = errors.New("tasks: the task ended already")
)

// Log is a session's task folder as its owner writes it: the records
// journal, and the transcripts of the tasks running here. The engine makes
// it on the session's first task and closes it with the session. S is
// what the engine keeps of a running task's transcript (its fold), held
// as the Run's Shape.
type Log[S any] struct {
	fsys    vfs.FS
	dir     string   // the session's task folder
	session string   // the session's id, in each transcript's header
	lock    vfs.Lock // the session's ownership lock
	token   string   // this owner's token, on its start and continue lines
	now     func() time.Time

	mu      sync.Mutex
	w       *journal.Writer    // the records journal; nil until opened, and after a write failed
	running map[string]*Run[S] // running here: started by this log, or held ones opened here
	closed  bool
}

// NewLog is the writer of task folder dir of session, for its owner
// holding lock, whose start and continue lines carry token; now is the
// clock.
func NewLog[S any](fsys vfs.FS, dir, session string, lock vfs.Lock, token string, now func() time.Time) *Log[S] {
	return &Log[S]{fsys: fsys, dir: dir, session: session, lock: lock, token: token, now: now, running: map[string]*Run[S]{}}
}

// RecordsName is the log's records journal.
func (tl *Log[S]) RecordsName() string { return path.Join(tl.dir, RecordsFile) }

func (tl *Log[S]) transcript(task string) string { return path.Join(tl.dir, task+TranscriptSuffix) }

func (tl *Log[S]) at() timefmt.Time { return timefmt.Mk(tl.now()) }

// Run is a task (or background shell job) running in its log's session:
// its transcript writer, its counts and the engine's Shape of it. Every
// field is guarded by its log's mu.
type Run[S any] struct {
	log   *Log[S]
	id    string
	kind  string
	held  bool
	w     *journal.Writer // the transcript; nil for a shell job
	items int             // the transcript's item lines
	bytes int64           // their payload bytes
	shape S
	done  bool
}

// ID is the task's id.
func (r *Run[S]) ID() string { return r.id }

// open opens the records journal for appending (cutting a torn tail).
func (tl *Log[S]) open() error {
	if tl.closed {
		return ErrClosed
	}
	if tl.w != nil {
		return nil
	}
	if err := mkdir(tl.fsys, tl.dir); err != nil {
		return fmt.Errorf("tasks: task folder: %w", err)
	}
	w, _, err := journal.OpenWriter(tl.fsys, tl.RecordsName(), journal.Options{Sync: journal.SyncEvery, Now: tl.now})
	if err != nil {
		return fmt.Errorf("tasks: open task records: %w", err)
	}
	tl.w = w
	return nil
}

// mkdir makes folder name and its parents when missing, durably.
func mkdir(fsys vfs.FS, name string) error {
	if _, err := fsys.Stat(name); err == nil {
		return nil
	}
	return vfs.MkdirAllDurable(fsys, name, vfs.DirPerm)
}

// append writes l, synced; a failure drops the writer (the next write
// reopens the journal, cutting a torn line).
func (tl *Log[S]) append(l *Line) error {
	if err := tl.open(); err != nil {
		return err
	}
	if err := tl.w.Append(l); err != nil {
		tl.w.Close()
		tl.w = nil
		return fmt.Errorf("tasks: record task %s: %w", l.Task, err)
	}
	return nil
}

// owner stamps a line that is not held with this process and owner.
func (tl *Log[S]) owner(l *Line) {
	if l.Held {
		return
	}
	l.PID, l.Owner = os.Getpid(), tl.token
}

// Records folds the records journal, each record's state settled from
// what this log knows: running here, held, or interrupted.
func (tl *Log[S]) Records() ([]*Record, error) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return tl.records()
}

func (tl *Log[S]) records() ([]*Record, error) {
	recs, err := Read(tl.fsys, tl.RecordsName())
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		if r.State == "" {
			r.State = Interrupted
			if r.Held || (r.Owner == tl.token && tl.running[r.ID] != nil) {
				r.State = Running
			}
		}
	}
	return recs, nil
}

// takenBy is the ids of recs.
func takenBy(recs []*Record) func(string) bool {
	ids := map[string]bool{}
	for _, r := range recs {
		ids[r.ID] = true
	}
	return func(c string) bool { return ids[c] }
}

// Running is the run of task id running here, or nil.
func (tl *Log[S]) Running(id string) *Run[S] {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return tl.running[id]
}

// StartAgent starts a new sub-agent task, its id made from label, called
// by call: its transcript is made with its header, then its start line is
// written. The id is none of the records' and none that taken says is
// taken (nil: none). shape makes the engine's fold of the empty transcript
// of a task of that id.
func (tl *Log[S]) StartAgent(label, call string, background, held bool, taken func(string) bool, shape func(id string) S) (*Run[S], error) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	recs, err := tl.records()
	if err != nil {
		return nil, err
	}
	if tl.closed {
		return nil, ErrClosed
	}
	own := takenBy(recs)
	id := ids.Slug(label, func(c string) bool { return own(c) || taken != nil && taken(c) })
	r := &Run[S]{log: tl, id: id, kind: TypeAgent, held: held, shape: shape(id)}
	if err := mkdir(tl.fsys, tl.dir); err != nil {
		return nil, fmt.Errorf("tasks: task folder: %w", err)
	}
	now := tl.at()
	r.w, err = journal.Create(tl.fsys, tl.transcript(r.id), []any{Header{V: 1, Kind: KindHeader, Task: r.id, Session: tl.session, At: now}},
		journal.Options{Sync: journal.SyncManual, Now: tl.now})
	if err != nil {
		return nil, fmt.Errorf("tasks: create task %s: %w", r.id, err)
	}
	l := &Line{V: 1, Kind: "start", Task: r.id, Type: TypeAgent, Label: CutLabel(label), Call: call, At: now,
		Background: background, Held: held}
	tl.owner(l)
	if err := tl.append(l); err != nil {
		r.w.Close()
		return nil, err
	}
	tl.running[r.id] = r
	return r, nil
}

// ContinueAgent continues settled or cancelled task id, called by call:
// its transcript, holding items item lines of bytes payload bytes (the
// engine's fold, shape), is opened for appending, and its continue line
// written.
func (tl *Log[S]) ContinueAgent(id, call string, held bool, items int, bytes int64, shape S) (*Run[S], error) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if tl.closed {
		return nil, ErrClosed
	}
	r := &Run[S]{log: tl, id: id, kind: TypeAgent, held: held, items: items, bytes: bytes, shape: shape}
	var err error
	if r.w, _, err = journal.OpenWriter(tl.fsys, tl.transcript(id), journal.Options{Sync: journal.SyncManual, Now: tl.now}); err != nil {
		return nil, fmt.Errorf("tasks: open task %s: %w", id, err)
	}
	from := items
	l := &Line{V: 1, Kind: "continue", Task: id, Call: call, At: tl.at(), From: &from, Held: held}
	tl.owner(l)
	if err := tl.append(l); err != nil {
		r.w.Close()
		return nil, err
	}
	tl.running[id] = r
	return r, nil
}

// StartShell records a background shell job about to run cmdline, called
// by call: its id is its shell label, its command kept as shell history
// keeps one. The record is synced before it returns.
func (tl *Log[S]) StartShell(cmdline, call string) (*Run[S], error) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	recs, err := tl.records()
	if err != nil {
		return nil, err
	}
	id := ids.Unique(ids.ShellLabel(cmdline), takenBy(recs))
	cmd, _ := shell.Head(cmdline, shell.KeepBytes)
	l := &Line{V: 1, Kind: "start", Task: id, Type: TypeShell, Label: id, Cmd: cmd, Call: call, At: tl.at(), Background: true}
	tl.owner(l)
	if err := tl.append(l); err != nil {
		return nil, err
	}
	r := &Run[S]{log: tl, id: id, kind: TypeShell}
	tl.running[id] = r
	return r, nil
}

// Adopt takes on held task id of kind, running in the session though
// started by an earlier process: an agent's transcript (items item lines
// of bytes payload bytes, folded as shape) is opened for appending.
func (tl *Log[S]) Adopt(id, kind string, items int, bytes int64, shape S) (*Run[S], error) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if r := tl.running[id]; r != nil {
		return r, nil
	}
	r := &Run[S]{log: tl, id: id, kind: kind, held: true, items: items, bytes: bytes, shape: shape}
	if kind == TypeAgent {
		var err error
		if r.w, _, err = journal.OpenWriter(tl.fsys, tl.transcript(id), journal.Options{Sync: journal.SyncManual, Now: tl.now}); err != nil {
			return nil, fmt.Errorf("tasks: open task %s: %w", id, err)
		}
	}
	tl.running[id] = r
	return r, nil
}

// EndHeld ends held task id of kind, not running here, as settled: its
// transcript holds items item lines of bytes payload bytes.
func (tl *Log[S]) EndHeld(id, kind string, items int, bytes int64) error {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	r := &Run[S]{log: tl, id: id, kind: kind, held: true, items: items, bytes: bytes}
	return r.end(Settled)
}

// Append writes one item line to the run's transcript, written, not
// synced. With the log's lock held it calls build with the run's Shape:
// build checks the item and returns its line (or an error, and nothing is
// written). Once the line is written it calls fold, which folds it into
// the Shape and returns the payload bytes it adds. A write that fails
// reopens the transcript for the next Append, its torn line cut.
func (r *Run[S]) Append(build func(shape S) (any, error), fold func(shape S) int64) error {
	tl := r.log
	tl.mu.Lock()
	defer tl.mu.Unlock()
	switch {
	case r.w == nil:
		return ErrNoTranscript
	case r.done || tl.closed:
		return ErrNotRunning
	}
	l, err := build(r.shape)
	if err != nil {
		return err
	}
	if err := r.w.Append(l); err != nil {
		r.w.Close()
		if w, _, rerr := journal.OpenWriter(tl.fsys, r.w.Name(), journal.Options{Sync: journal.SyncManual, Now: tl.now}); rerr == nil {
			r.w = w
		}
		return fmt.Errorf("tasks: task %s: %w", r.id, err)
	}
	r.items++
	r.bytes += fold(r.shape)
	return nil
}

// Sync makes the items appended so far durable.
func (r *Run[S]) Sync() error {
	r.log.mu.Lock()
	defer r.log.mu.Unlock()
	if r.w == nil || r.done {
		return nil
	}
	return r.w.Sync()
}

// End records that the run ended in state (Settled or Cancelled), its
// transcript synced first.
func (r *Run[S]) End(state string) error {
	r.log.mu.Lock()
	defer r.log.mu.Unlock()
	if r.done {
		return ErrEnded
	}
	if r.log.closed {
		return ErrClosed
	}
	return r.end(state)
}

// end writes the end line; the log's mu is held.
func (r *Run[S]) end(state string) error {
	tl := r.log
	l := &Line{V: 1, Kind: "end", Task: r.id, State: state, At: tl.at()}
	if r.w != nil {
		if err := r.w.Sync(); err != nil {
			return fmt.Errorf("tasks: task %s: %w", r.id, err)
		}
	}
	if r.kind == TypeAgent {
		n, b := r.items, r.bytes
		l.Items, l.Bytes = &n, &b
	}
	if err := tl.append(l); err != nil {
		return err
	}
	r.done = true
	if r.w != nil {
		r.w.Close()
	}
	delete(tl.running, r.id)
	return nil
}

// Close ends the log with its session: the tasks this process runs are
// cancelled (the runtime has drained them; what it did not is stopped
// here), held ones keep running, their transcripts synced.
func (tl *Log[S]) Close() {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	for _, r := range tl.running {
		if r.held {
			if r.w != nil {
				r.w.Close()
			}
			continue
		}
		r.end(Cancelled)
	}
	tl.closed = true
	if tl.w != nil {
		tl.w.Close()
		tl.w = nil
	}
}

// Live reports whether the record of task, started with owner token
// owner, is running in this log's process and session.
func (tl *Log[S]) Live(owner, task string) bool {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if tl.closed || owner != tl.token || tl.running[task] == nil {
		return false
	}
	// After a simulated power loss the owner's lock is gone with it.
	if l := tl.lock; l != nil {
		if f := l.File(); f != nil {
			if _, err := f.Stat(); err != nil {
				return false
			}
		}
	}
	return true
}
