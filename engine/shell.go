package engine

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"cairn/engine/ids"
	"cairn/internal/vfs"
	"cairn/journal"
)

// Shell history: <id>.shell.jsonl in the sessions folder keeps the
// session's foreground shell commands, each written twice:
//
//	{"v":1,"kind":"start","run":"shell-cargo-test","at":T,"cmd":"cargo test","pid":P,"owner":"o-..."}
//	{"v":1,"kind":"end","run":"shell-cargo-test","at":T,"exit":0,"stdout":"...","stderr":"...","stdout_cut":N,"stderr_cut":N}
//
// The start line is written and synced before the command may run; a
// runtime that cannot record it must not run the command. The end line
// keeps the last ShellKeepBytes of each stream; *_cut counts the bytes cut
// from the front (a cut never splits a UTF-8 sequence; bytes that are not
// UTF-8 read back as U+FFFD). A command is the "cmd" text, cut the same
// way (its first ShellKeepBytes kept, "cmd_cut" the rest).
//
// A start with no end is running while the process that wrote it (pid and
// owner token) still owns the session, and interrupted otherwise: after a
// crash, or once the session was closed or reopened. Its outcome is unknown
// and it is never run again. A finished or interrupted command is settled.
//
// The journal is bounded: when the owner has written more than
// shellCompactAt settled commands, it rewrites the file by atomic rename
// with the newest ShellKeep settled ones (by start) and the running ones.
// Run ids are shell labels (ids.ShellLabel) made unique among the ids in the
// journal and those a rewrite dropped: a rewrite writes first
//
//	{"v":1,"kind":"taken","runs":{"shell-cargo-test":57,"shell":3}}
//
// (Part of the format) with, per label, the highest suffix of a dropped
// run (1 for the bare label), merged with the taken line before it, so a
// dropped run's id is never given to a later command. Shell history is not
// copied into forks.

// Format constants of shell history.
const (
	// ShellKeep is how many settled commands ShellHistory returns and a
	// rewrite keeps.
	ShellKeep = 200
	// ShellKeepBytes is the most bytes kept of each stream (and of a command).
	ShellKeepBytes = 64 << 10
	// shellCompactAt is the number of settled commands that triggers a
	// rewrite.
	shellCompactAt = 2 * ShellKeep
)

// Shell command states, as ShellEntry.Status.
const (
	ShellRunning     = "running"
	ShellFinished    = "finished"
	ShellInterrupted = "interrupted"
)

func shellName(dir, id string) string { return path.Join(dir, "sessions", id+".shell.jsonl") }

// shellLine is a line of the shell journal.
type shellLine struct {
	V         int    `json:"v"`
	Kind      string `json:"kind"` // "start", "end" or "taken"
	Run       string `json:"run"`
	At        Time   `json:"at"`
	Cmd       string `json:"cmd,omitempty"`
	CmdCut    int64  `json:"cmd_cut,omitempty"`
	PID       int    `json:"pid,omitempty"`
	Owner     string `json:"owner,omitempty"`
	Exit      *int   `json:"exit,omitempty"`
	Stdout    string `json:"stdout,omitempty"`
	Stderr    string `json:"stderr,omitempty"`
	StdoutCut int64  `json:"stdout_cut,omitempty"`
	StderrCut int64  `json:"stderr_cut,omitempty"`
	// Runs: a taken line's highest dropped suffix per label.
	Runs map[string]int `json:"runs,omitempty"`
}

// ShellEntry is one command of a session's shell history.
type ShellEntry struct {
	Run       string `json:"run"`
	Cmd       string `json:"cmd"`
	CmdCut    int64  `json:"cmd_cut,omitempty"`
	Status    string `json:"status"` // ShellRunning, ShellFinished or ShellInterrupted
	StartedAt Time   `json:"started_at"`
	EndedAt   Time   `json:"ended_at"` // zero unless finished
	Exit      int    `json:"exit"`     // meaningful when finished
	Stdout    string `json:"stdout,omitempty"`
	Stderr    string `json:"stderr,omitempty"`
	StdoutCut int64  `json:"stdout_cut,omitempty"`
	StderrCut int64  `json:"stderr_cut,omitempty"`

	pid     int
	owner   string
	raw     []shellRaw // the entry's journal lines, for a rewrite
	settled int        // index of the line that settled it: its end, or its start
}

// shellRaw is a journal line and its index in the journal.
type shellRaw struct {
	n    int
	line []byte
}

// shellLog is a session's shell journal as its owner writes it. It is made
// on first use and closed with the session.
type shellLog struct {
	mu      sync.Mutex
	s       *Session
	fsys    vfs.FS
	name    string
	lock    vfs.Lock
	token   string
	w       *journal.Writer // nil until opened, and after a write failed
	settled int             // settled commands in the journal
	taken   map[string]bool // run ids in the journal
	dropped map[string]int  // per label, the highest suffix a rewrite dropped (its taken line)
	running map[string]bool // runs of this log not yet finished
	closed  bool
}

// shellClosed stands in Store.shellLive for the log of a session closed in
// the store.
type shellClosed struct{}

// ShellRun is a command recorded as started; Finish records how it settled.
type ShellRun struct {
	log  *shellLog
	id   string
	done bool
}

// ID is the run's id, a shell label such as "shell-cargo-test-2". Use it
// unchanged; it is not rebuilt from the command.
func (r *ShellRun) ID() string { return r.id }

// ShellStart records that cmdline is about to run and returns the run. The
// start line is written and synced before ShellStart returns; when it
// returns an error, the command must not run. A session that cannot be
// recorded (Degrade mode after a failure) cannot run shell commands.
func (s *Session) ShellStart(ctx context.Context, cmdline string) (*ShellRun, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	var err error
	if s.closed {
		err = fmt.Errorf("engine: session %s is closed", s.st.id)
	} else if err = s.materializeForItem(ctx); err == nil && s.unrecorded != nil {
		err = fmt.Errorf("engine: session %s is not recorded: %w", s.st.id, s.unrecorded)
	}
	if err == nil && s.shell == nil {
		w := s.ws
		s.shell = &shellLog{s: s, fsys: w.s.fsys, name: shellName(w.dir, s.st.id), lock: s.lock,
			token: "o-" + randHex(8), running: map[string]bool{}}
		// The store keeps the log of each session open in it, so
		// ShellHistory can tell a running command from one cut short.
		w.s.shellLive.Store(s.shell.name, s.shell)
	}
	sh := s.shell
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return sh.start(cmdline)
}

// open opens the journal for appending and counts what it holds.
func (sh *shellLog) open() error {
	if sh.w != nil {
		return nil
	}
	w, _, err := journal.OpenWriter(sh.fsys, sh.name, journal.Options{Sync: journal.SyncEvery, Now: sh.s.ws.s.now})
	if err != nil {
		return fmt.Errorf("engine: open shell history: %w", err)
	}
	ents, dropped, err := readShell(sh.fsys, sh.name)
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
func (sh *shellLog) isTaken(c string) bool {
	if sh.taken[c] || sh.running[c] {
		return true
	}
	base, n := splitRun(c)
	m, ok := sh.dropped[base]
	return ok && n <= m
}

// splitRun splits a run id into its label and its suffix ("shell-ls-3":
// "shell-ls", 3; "shell-ls": "shell-ls", 1). No shell label ends in
// "-<digits>" (ids.ShellLabel's table), so the split is exact.
func splitRun(id string) (string, int) {
	i := strings.LastIndexByte(id, '-')
	if i < 0 {
		return id, 1
	}
	n, err := strconv.Atoi(id[i+1:])
	if err != nil || n < 2 || id[i+1] == '0' {
		return id, 1
	}
	return id[:i], n
}

func (sh *shellLog) start(cmdline string) (*ShellRun, error) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.closed {
		return nil, fmt.Errorf("engine: session %s is closed", sh.s.st.id)
	}
	if err := sh.open(); err != nil {
		return nil, err
	}
	id := ids.Unique(ids.ShellLabel(cmdline), sh.isTaken)
	cmd, cut := head(cmdline, ShellKeepBytes)
	l := &shellLine{V: 1, Kind: "start", Run: id, At: mkTime(sh.s.ws.s.Now()), Cmd: cmd, CmdCut: cut,
		PID: os.Getpid(), Owner: sh.token}
	prev := sh.w.Size()
	if err := sh.w.Append(l); err != nil {
		sh.broken()
		sh.retract(prev)
		return nil, fmt.Errorf("engine: record shell command: %w", err)
	}
	sh.taken[id], sh.running[id] = true, true
	return &ShellRun{log: sh, id: id}, nil
}

// retract cuts a start line whose write or sync failed, so that a command
// that never ran is not listed (best effort: if the cut cannot be made, the
// line reads as an interrupted command).
func (sh *shellLog) retract(size int64) {
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
func (sh *shellLog) broken() {
	if sh.w != nil {
		sh.w.Close()
		sh.w = nil
	}
}

// Finish records how the command settled: its exit code and the end of
// each stream (at most ShellKeepBytes of each; the end line counts the
// bytes of each before that in stdout_cut and stderr_cut). The end line is
// synced before Finish returns. A failed Finish may be retried.
func (r *ShellRun) Finish(ctx context.Context, exit int, stdout, stderr []byte) error {
	return r.FinishTails(ctx, exit, ShellTail{Bytes: stdout}, ShellTail{Bytes: stderr})
}

// ShellTail is the end of a stream a caller kept: Bytes, after Dropped
// bytes it did not keep (a caller that keeps only the tail of a long
// output, as Exec does).
type ShellTail struct {
	Bytes   []byte
	Dropped int64
}

// FinishTails is Finish for streams whose beginnings the caller dropped:
// the end line's stdout_cut and stderr_cut count them too.
func (r *ShellRun) FinishTails(ctx context.Context, exit int, stdout, stderr ShellTail) error {
	sh := r.log
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if r.done {
		return fmt.Errorf("%w: shell run %s already finished", ErrBadInput, r.id)
	}
	if sh.closed {
		return fmt.Errorf("engine: session %s is closed", sh.s.st.id)
	}
	if err := sh.open(); err != nil {
		return err
	}
	l := &shellLine{V: 1, Kind: "end", Run: r.id, At: mkTime(sh.s.ws.s.Now()), Exit: &exit}
	l.Stdout, l.StdoutCut = tail(stdout.Bytes, ShellKeepBytes)
	l.Stderr, l.StderrCut = tail(stderr.Bytes, ShellKeepBytes)
	l.StdoutCut += max(stdout.Dropped, 0)
	l.StderrCut += max(stderr.Dropped, 0)
	if err := sh.w.Append(l); err != nil {
		sh.broken()
		return fmt.Errorf("engine: record shell result: %w", err)
	}
	r.done = true
	delete(sh.running, r.id)
	sh.settled++
	if sh.settled > shellCompactAt {
		// The end line is durable; a failed rewrite is tried again after
		// the next command.
		if err := sh.compact(ctx); err != nil {
			sh.s.noticef("shell history could not be trimmed: %v", err)
		}
	}
	return nil
}

// compact rewrites the journal with the newest ShellKeep settled commands
// and the running ones. Callers hold sh.mu and own the session.
func (sh *shellLog) compact(ctx context.Context) error {
	ents, dropped, err := readShell(sh.fsys, sh.name)
	if err != nil {
		return err
	}
	keep := keepShell(ents, func(e *ShellEntry) bool { return sh.running[e.Run] })
	var lines []shellRaw
	kept := map[*ShellEntry]bool{}
	for _, e := range keep {
		lines = append(lines, e.raw...)
		kept[e] = true
	}
	// The lines keep their order, so the newest settled stay the newest.
	slices.SortFunc(lines, func(a, b shellRaw) int { return a.n - b.n })
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

// keepShell is the ShellKeep entries settled last and every running one,
// in start order.
func keepShell(ents []*ShellEntry, running func(*ShellEntry) bool) []*ShellEntry {
	var at []int
	for _, e := range ents {
		if !running(e) {
			at = append(at, e.settled)
		}
	}
	cutoff := -1 // entries settled at or before it go
	if len(at) > ShellKeep {
		slices.Sort(at)
		cutoff = at[len(at)-ShellKeep-1]
	}
	var out []*ShellEntry
	for _, e := range ents {
		if !running(e) && e.settled <= cutoff {
			continue
		}
		out = append(out, e)
	}
	return out
}

// close ends the log with its session: runs not finished read as
// interrupted from now on.
func (sh *shellLog) close() {
	if sh == nil {
		return
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.closed = true
	sh.broken()
	// The store remembers that the session was closed here: its runs
	// not finished are interrupted, whoever opens it next in this store.
	sh.s.ws.s.shellLive.CompareAndSwap(sh.name, sh, shellClosed{})
}

// live reports whether run is running in this log's process and session.
func (sh *shellLog) live(owner, run string) bool {
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
