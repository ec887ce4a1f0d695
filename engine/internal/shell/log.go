package shell

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"time"

	"cairn/engine/ids"
	"cairn/internal/timefmt"
	"cairn/internal/vfs"
	"cairn/journal"
)

// ErrClosed: the log was closed with its session.
var ErrClosed = errors.New("shell: the session is closed")

// ErrFinished: the run was finished already.
var ErrFinished = errors.New("shell: the run was finished already")

// Log is a session's shell journal as its owner writes it. The engine
// makes it on the session's first command and closes it with the session.
type Log struct {
	fsys  vfs.FS
	name  string
	lock  vfs.Lock // the session's ownership lock
	token string   // this owner's token, on every start line
	now   func() time.Time
	// notice says what went wrong that the caller need not fail for (a
	// rewrite that could not be made).
	notice func(format string, a ...any)

	mu      sync.Mutex
	w       *journal.Writer // nil until opened, and after a write failed
	settled int             // settled commands in the journal
	taken   map[string]bool // run ids in the journal
	dropped map[string]int  // per label, the highest suffix a rewrite dropped (its taken line)
	running map[string]bool // runs of this log not yet finished
	closed  bool
}

// NewLog is the writer of journal name for the owner of a session holding
// lock, whose start lines carry token; now is the clock, notice where a
// failed rewrite is said.
func NewLog(fsys vfs.FS, name string, lock vfs.Lock, token string, now func() time.Time, notice func(format string, a ...any)) *Log {
	return &Log{fsys: fsys, name: name, lock: lock, token: token, now: now, notice: notice, running: map[string]bool{}}
}

// Name is the journal's name.
func (sh *Log) Name() string { return sh.name }

// Run is a command recorded as started; Finish records how it settled.
type Run struct {
	log  *Log
	id   string
	done bool // guarded by log.mu
}

// ID is the run's id, a shell label such as "shell-cargo-test-2".
func (r *Run) ID() string { return r.id }

// open opens the journal for appending and counts what it holds.
func (sh *Log) open() error {
	if sh.w != nil {
		return nil
	}
	w, _, err := journal.OpenWriter(sh.fsys, sh.name, journal.Options{Sync: journal.SyncEvery, Now: sh.now})
	if err != nil {
		return fmt.Errorf("shell: open shell history: %w", err)
	}
	ents, dropped, err := Read(sh.fsys, sh.name)
	if err != nil {
		w.Close()
		return err
	}
	sh.dropped = dropped
	sh.taken, sh.settled = map[string]bool{}, 0
	for _, e := range ents {
		sh.taken[e.Run] = true
		if !sh.running[e.Run] {
			sh.settled++
		}
	}
	sh.w = w
	return nil
}

// isTaken reports whether run id c was given: it is in the journal, or a
// rewrite dropped it.
func (sh *Log) isTaken(c string) bool {
	if sh.taken[c] || sh.running[c] {
		return true
	}
	base, n := splitRun(c)
	m, ok := sh.dropped[base]
	return ok && n <= m
}

// Start records that cmdline is about to run and returns the run. The
// start line is synced before Start returns; when it returns an error,
// the command must not run.
func (sh *Log) Start(cmdline string) (*Run, error) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.closed {
		return nil, ErrClosed
	}
	if err := sh.open(); err != nil {
		return nil, err
	}
	id := ids.Unique(ids.ShellLabel(cmdline), sh.isTaken)
	cmd, cut := Head(cmdline, KeepBytes)
	l := &line{V: 1, Kind: "start", Run: id, At: timefmt.Mk(sh.now()), Cmd: cmd, CmdCut: cut,
		PID: os.Getpid(), Owner: sh.token}
	prev := sh.w.Size()
	if err := sh.w.Append(l); err != nil {
		sh.broken()
		sh.retract(prev)
		return nil, fmt.Errorf("shell: record shell command: %w", err)
	}
	sh.taken[id], sh.running[id] = true, true
	return &Run{log: sh, id: id}, nil
}

// retract cuts a start line whose write or sync failed, so that a command
// that never ran is not listed (best effort: if the cut cannot be made, the
// line reads as an interrupted command).
func (sh *Log) retract(size int64) {
	f, err := sh.fsys.OpenFile(sh.name, os.O_RDWR, 0)
	if err != nil {
		return
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > size && f.Truncate(size) == nil {
		f.Sync()
	}
}

// broken drops a writer that failed; the next write reopens the journal
// (cutting a torn line).
func (sh *Log) broken() {
	if sh.w != nil {
		sh.w.Close()
		sh.w = nil
	}
}

// Tail is the end of a stream a caller kept: Bytes, after Dropped bytes
// it did not keep (a caller that keeps only the tail of a long output).
type Tail struct {
	Bytes   []byte
	Dropped int64
}

// Finish records how the command settled: its exit code and the end of
// each stream (at most KeepBytes of each; the end line counts the bytes
// cut before that, and those the caller dropped, in stdout_cut and
// stderr_cut). The end line is synced before Finish returns. A failed
// Finish may be retried.
func (r *Run) Finish(ctx context.Context, exit int, stdout, stderr Tail) error {
	return r.finish(ctx, exit, false, stdout, stderr)
}

// FinishCancelled is Finish for a command its owner stopped: its entry
// reads Cancelled, with the exit the stopped command gave.
func (r *Run) FinishCancelled(ctx context.Context, exit int, stdout, stderr Tail) error {
	return r.finish(ctx, exit, true, stdout, stderr)
}

func (r *Run) finish(ctx context.Context, exit int, cancelled bool, stdout, stderr Tail) error {
	sh := r.log
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if r.done {
		return ErrFinished
	}
	if sh.closed {
		return ErrClosed
	}
	if err := sh.open(); err != nil {
		return err
	}
	l := &line{V: 1, Kind: "end", Run: r.id, At: timefmt.Mk(sh.now()), Exit: &exit, Cancelled: cancelled}
	l.Stdout, l.StdoutCut = tail(stdout.Bytes, KeepBytes)
	l.Stderr, l.StderrCut = tail(stderr.Bytes, KeepBytes)
	l.StdoutCut += max(stdout.Dropped, 0)
	l.StderrCut += max(stderr.Dropped, 0)
	if err := sh.w.Append(l); err != nil {
		sh.broken()
		return fmt.Errorf("shell: record shell result: %w", err)
	}
	r.done = true
	delete(sh.running, r.id)
	sh.settled++
	if sh.settled > CompactAt {
		// The end line is durable; a failed rewrite is tried again after
		// the next command.
		if err := sh.compact(ctx); err != nil {
			sh.notice("shell history could not be trimmed: %v", err)
		}
	}
	return nil
}

// compact rewrites the journal with the newest Keep settled commands and
// the running ones. sh.mu is held.
func (sh *Log) compact(ctx context.Context) error {
	ents, dropped, err := Read(sh.fsys, sh.name)
	if err != nil {
		return err
	}
	keep := Newest(ents, func(e *Entry) bool { return sh.running[e.Run] })
	var lines []rawLine
	kept := map[*Entry]bool{}
	for _, e := range keep {
		lines = append(lines, e.raw...)
		kept[e] = true
	}
	// The lines keep their order, so the newest settled stay the newest.
	slices.SortFunc(lines, func(a, b rawLine) int { return a.n - b.n })
	// The ids of the dropped runs stay taken: the taken line goes first.
	for _, e := range ents {
		if !kept[e] {
			base, n := splitRun(e.Run)
			dropped[base] = max(dropped[base], n)
		}
	}
	takenLine, _ := json.Marshal(struct {
		V    int            `json:"v"`
		Kind string         `json:"kind"`
		Runs map[string]int `json:"runs"`
	}{1, "taken", dropped})
	err = vfs.WriteAtomic(sh.fsys, sh.name, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		if len(dropped) > 0 {
			bw.Write(takenLine)
			bw.WriteByte('\n')
		}
		for _, l := range lines {
			if err := ctx.Err(); err != nil {
				return err
			}
			bw.Write(l.line)
			bw.WriteByte('\n')
		}
		return bw.Flush()
	})
	if err != nil {
		return err
	}
	sh.broken() // the old handle names the replaced file
	sh.taken, sh.settled = map[string]bool{}, 0
	for _, e := range keep {
		sh.taken[e.Run] = true
		if !sh.running[e.Run] {
			sh.settled++
		}
	}
	return sh.open()
}

// Close ends the log with its session: runs not finished read as
// interrupted from now on.
func (sh *Log) Close() {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.closed = true
	sh.broken()
}

// Live reports whether run, started with owner token owner, is running in
// this log's process and session.
func (sh *Log) Live(owner, run string) bool {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.closed || owner != sh.token || !sh.running[run] {
		return false
	}
	// After a simulated power loss the owner's lock is gone with it.
	if f := sh.lock.File(); f != nil {
		if _, err := f.Stat(); err != nil {
			return false
		}
	}
	return true
}
