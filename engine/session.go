package engine

import (
	"context"
	"sync"
	"sync/atomic"

	"cairn/engine/internal/bgwork"
	"cairn/engine/internal/callrec"
	"cairn/engine/internal/checkouts"
	"cairn/engine/internal/config"
	"cairn/engine/internal/convlog"
	"cairn/engine/internal/inbox"
	"cairn/engine/internal/shell"
	"cairn/engine/internal/usage"
	"cairn/internal/vfs"
)

// Session is a session open for writing by this process. Create makes one
// in memory; its files are written only once it holds something worth
// keeping. Open takes ownership of a stored one. A Session is safe for use
// by several goroutines.
type Session struct {
	ws *Workspace
	mu sync.Mutex
	// convLog is the conversation: its folded state, the items journal and
	// the trail, the record, Degrade mode (conv.go). Guarded by mu.
	convLog
	// usage is the usage lines on their way to the ledger (package usage).
	// Guarded by mu.
	usage usage.Queue

	lock vfs.Lock
	// changesLog is the changes log: the undo stack and its writer, the
	// folder syncs, the applier (changes_log.go says which lock guards
	// which field).
	changesLog
	running callCount // calls running now, holding the workspace call lock (calls_lock.go)
	// mustBeNew: the session's id is not random (OpenAgent, hook.go), so
	// another process may have made it meanwhile: materialize checks.
	mustBeNew bool
	// busy is held (shared) by a file tool, a Change or an undo while it
	// runs, and by Close, so Close waits for them and none starts after
	// it. The lock order of all the mutexes: doc_map.go, "Locks, in full".
	busy  sync.RWMutex
	shell *shell.Log    // shell history, made on first use (shell.go)
	calls callrec.State // recording calls other than the file tools (internal/callrec/capture.go)
	tasks *taskLog      // task records, made on first use (task.go)
	work  sessionWork   // background work and the inbox (background_session.go)
	cfg   config.Cache  // config.json, read once (session_config.go)
	// closing is cancelled when Close begins, with stopRunning: the shell
	// lines running then (Exec) are killed, so Close waits for them to
	// settle, not to finish. Made on first use; guarded by mu.
	closing     context.Context
	stopRunning context.CancelFunc
	opts        SessionOptions
	// changesOnly: opened for its change records only, its conversation
	// not loaded (hook_open.go): no item, record or open line is written.
	changesOnly bool
	// index: opened by a prompt hook, which keeps the hooks' index as it
	// closes (hook_prompt.go).
	index *indexKeep
	// readOnly: opened without ownership, its state folder not writable
	// (session_readonly.go). It is never written, even if the folder
	// becomes writable: another process may own it by then.
	readOnly bool
	closed   bool
	resume   ResumeInfo
}

// SessionOptions change how a session is created or opened.
type SessionOptions struct {
	Remote bool // the caller runs the file side on the bound remote workspace; else Open refuses a bound session
	// Elsewhere: the conversation is kept elsewhere (a remote workspace's
	// host session); each change line is placed by the Place it returns.
	Elsewhere func() Place
	Limit     func(Config) Config // applied to config.json at each read (a host lowers its client's limits)
	// Degrade keeps the session running in memory while it cannot be
	// written (Notice is told), writing the kept lines once a write works.
	Degrade     bool
	Notice      func(string) // the one-line messages a session shows its user
	Ephemeral   bool         // spend is labelled ephemeral in the usage ledger
	NoSnapshots bool         // no call is recorded and file tools capture nothing
	Watch       bool         // a whole-workspace record starts a watcher for later rescans
	// Brief: opened for one call (an agent's hook): no open line, and the
	// record keeps the last run's opened_at, branch and build.
	Brief    bool
	ReadOnly bool // no lock, nothing written; anything that would write is refused
}

// ResumeInfo says what changed since the session last ran.
type ResumeInfo = convlog.ResumeInfo

// Create starts a new session in the workspace. Nothing is written until
// the first item arrives.
func (w *Workspace) Create(opts SessionOptions) *Session {
	s := &Session{ws: w, opts: opts, convLog: newConvLog(newState(newSessionID(), w.path))}
	s.st.Build = Version
	s.st.Branch = checkouts.Branch(w.path)
	return s
}

// ID is the session id.
func (s *Session) ID() string { return s.st.ID }

// Workspace is the session's workspace.
func (s *Session) Workspace() *Workspace { return s.ws }

// Recorded reports whether the session has been written to disk.
func (s *Session) Recorded() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.recorded && s.unrecorded == nil
}

// Unrecorded is the error that stopped the session being written, if any.
func (s *Session) Unrecorded() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.unrecorded
}

// Resume says what changed since the session last ran (zero for a new one).
func (s *Session) Resume() ResumeInfo { return s.resume }

// Record is the session's current summary.
func (s *Session) Record() *Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	return recordOf(s.st, nil)
}

// Head is the id of the head item ("" for an empty conversation).
func (s *Session) Head() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.head()
}

// Transcript is the conversation on the head path, oldest first.
func (s *Session) Transcript() []Item {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.transcript()
}

// AllItems is every item of every branch, in the order they were written.
func (s *Session) AllItems() []Item {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.allItems()
}

// closeContext is the context Close cancels when it begins.
func (s *Session) closeContext() context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing == nil {
		s.closing, s.stopRunning = context.WithCancel(context.Background())
	}
	return s.closing
}

// untilClose is ctx, also cancelled when Close begins; stop releases it.
func (s *Session) untilClose(ctx context.Context) (_ context.Context, stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	unhook := context.AfterFunc(s.closeContext(), cancel)
	return ctx, func() { unhook(); cancel() }
}

func ptr[T any](v T) *T { return &v }

func (s *Session) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// callCount counts a session's calls running now (each holding the call
// lock shared): a file revert of the session refuses while any runs.
type callCount struct{ n atomic.Int32 }

// sessionWork is the part of a Session that runs its background work.
type sessionWork struct {
	mu     sync.Mutex // a leaf but for Session.mu taken inside Deliver's sink
	runner *bgwork.Runner
	box    *inbox.Inbox
	wake   []func()
	closed bool
	// dead is the shell jobs a crash interrupted whose pending markers
	// are still to be closed (sweepDeadJobs).
	dead []string
	// heldCancel reaches where held shell jobs run (OnHeldShellCancel).
	heldCancel func(id string) error
}

// indexKeep is how a session opened for a prompt keeps its index when it
// closes: a batch appended after at (append), holding the items from
// from in its order and those ids (items the journal gained that the
// index lacked), or else the whole index.
type indexKeep struct {
	at     int64
	append bool
	from   int
	ids    []string
	rec    *Record // the session record indexedState read, under the lock loadIndexed runs under
}
