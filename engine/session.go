package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"sync"

	"cairn/engine/internal/convlog"
	"cairn/engine/internal/errs"
	"cairn/engine/internal/shell"
	"cairn/engine/internal/usage"
	"cairn/internal/vfs"
	"cairn/journal"
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
	// it. The lock order of all the mutexes: doc.go, "Locks".
	busy  sync.RWMutex
	shell *shell.Log    // shell history, made on first use (shell.go)
	calls callRec       // recording calls other than the file tools (internal/callrec/capture.go)
	tasks *taskLog      // task records, made on first use (task.go)
	work  sessionWork   // background work and the inbox (background_session.go)
	cfg   sessionConfig // config.json, read once (session_config.go)
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
	s.st.Branch = gitBranch(w.path)
	return s
}

// Open takes ownership of session id (a full id; use Resolve for other
// references) and loads it. A second owner gets a *BusyError (ErrBusy)
// before anything is read or written.
func (w *Workspace) Open(ctx context.Context, id string, opts SessionOptions) (*Session, error) {
	if !validSessionID(id) {
		return nil, fmt.Errorf("%w: %q is not a session id", ErrBadInput, id)
	}
	if _, err := w.s.fsys.Stat(itemsName(w.dir, id)); err != nil {
		if vfs.IsNotExist(err) {
			return nil, fmt.Errorf("%w: %s in %s", ErrNotFound, id, w.path)
		}
		return nil, err
	}
	if opts.ReadOnly {
		return w.openReadOnly(ctx, id, opts, nil)
	}
	// The hint, read before the lock: acquire replaces it.
	noted, ownerDied := w.readHint(id)
	l, err := w.acquireAs(id, opts.Brief)
	var busy *BusyError
	if err != nil && opts.Degrade && !errors.As(err, &busy) {
		return w.openReadOnly(ctx, id, opts, err) // session_readonly.go
	}
	if err != nil {
		return nil, err
	}
	leased, err := w.lease(ctx, id, l, opts.Notice) // remote.go
	if err != nil {
		w.release(id, l)
		return nil, err
	}
	l = leased
	s := &Session{ws: w, opts: opts, lock: l, convLog: convLog{st: newState(id, w.path), recorded: true}}
	if err := s.load(ctx); err != nil {
		w.release(id, l)
		return nil, err
	}
	w.cleanOutputsOnOpen(ctx) // best effort (package outputs)
	w.removeTemps(id, ownerDied, noted)
	w.removeUnmade()
	return s, nil
}

// load folds the journal, opens it for appending (cutting a torn tail),
// records the open, and rebuilds the record when it disagrees.
func (s *Session) load(ctx context.Context) error {
	w := s.ws
	id := s.st.ID
	// The journal is read before it is opened for appending, so a session
	// that cannot be read is refused before anything is written to it.
	st, err := w.fold(ctx, id, foldOptions{hydrate: true, limit: w.s.eagerLimit()})
	if err != nil {
		return err
	}
	if err := w.readable(id, st); err != nil {
		return err
	}
	if r := remoteOf(st); r != nil && !s.opts.Remote {
		return &RemoteError{Session: id, Remote: *r}
	}
	wr, rep, err := journal.OpenWriter(w.s.fsys, itemsName(w.dir, id), journal.Options{Sync: journal.SyncManual, Now: w.s.now})
	if err != nil {
		return fmt.Errorf("engine: open session %s: %w", id, err)
	}
	if err := s.loadChanges(ctx); err != nil {
		wr.Close()
		return err
	}
	s.items, s.st = wr, st
	if msg := st.UnavailableNotice(); msg != "" {
		s.notice(msg)
	}
	s.kept.Items.Durable(wr.Size())
	// Turns the record does not call settled (a crash, a rebuilt record)
	// get back the trail and usage lines a crash may have lost. Best
	// effort: what cannot be put back now is tried at the next open.
	rec, rerr := readRecord(w.s.fsys, w.dir, id)
	if rerr == nil {
		st.Settled = min(rec.SettledTurn, st.Turns)
	}
	if st.Turns > st.Settled {
		if err := s.settleTurns(ctx); err != nil {
			s.noticef("the trail or usage lines of session %s's last turns could not be checked: %v", id, err)
		}
	}
	// The record is derived: rebuild it now only when it is missing,
	// unreadable or older than the journal. The open line below is synced
	// with the next turn or on Close.
	// In Degrade mode a record that cannot be written leaves the session
	// unrecorded but opened as any other: its open line is kept, and
	// written with the record once writes work again.
	// Without Degrade a record that cannot be written does not fail the
	// open either: it is derived, the journal holds everything, and what
	// the caller asks may need no write at all (a full disk must not turn
	// one failed write into every later open failing). It is said once and
	// rebuilt by the next write, open or listing.
	recordOK := true
	if rerr != nil || rec.Journals["items"] != wr.Size() || rec.SettledTurn != st.Settled {
		if err := writeRecord(w.s.fsys, w.dir, recordOf(st, map[string]int64{"items": wr.Size()})); err != nil {
			if s.opts.Degrade {
				if err := s.degrade(err); err != nil {
					return err
				}
			} else {
				s.noticef("the session's record could not be rebuilt (%v); its journal holds everything, "+
					"and the record is rebuilt when the session is next written, listed or opened", err)
				s.recordStale = true
			}
			recordOK = false
		}
	}
	if recordOK {
		s.recordOff, s.recordDurable, s.recordSettled = wr.Size(), true, st.Settled
	}
	s.resume = ResumeInfo{BranchBefore: st.Branch, BuildBefore: st.Build, Branch: gitBranch(w.path),
		Build: Version, AskTrust: st.Trust == nil, Repaired: rep.Cut}
	if s.opts.Brief {
		// No open line (SessionOptions.Brief): a hook opens the session
		// many times a turn, and an open line each would grow the journal
		// and cost Close a sync and a record rewrite. Nothing is written,
		// so the journal and the record Close finds are those checked
		// above, and Close writes neither.
		return nil
	}
	now := w.s.Now()
	if err := s.writeLine(ctx, &itemLine{V: 1, Kind: kindOpen, At: ptr(mkTime(now)), Branch: s.resume.Branch, Build: Version, PID: os.Getpid()}); err != nil {
		return err
	}
	s.st.Opened = mkTime(now)
	s.st.Branch, s.st.Build = s.resume.Branch, Version
	return nil
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

// Close makes the session durable and gives up ownership. The shell lines
// the session is running (Exec) are killed first, then waited for with
// every other call; their ends and outputs are kept.
func (s *Session) Close() error {
	s.closeContext()
	s.mu.Lock()
	s.stopRunning()
	s.mu.Unlock()
	s.closeWork() // cancelled and drained before the session is saved
	s.busy.Lock()
	defer s.busy.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	discarded := s.discardBare()
	err := s.commitDurable()
	if err == nil {
		s.keepIndex() // a prompt hook's (hook_prompt.go)
	}
	if n := s.kept.Lost(); n > 0 && s.unrecorded != nil && !s.readOnly {
		s.noticef("%s of this session kept in memory only may be lost: %v", convlog.CountText(n), s.unrecorded)
	}
	s.closed = true
	if s.items != nil {
		if cerr := s.items.Close(); err == nil && s.unrecorded == nil {
			err = cerr
		}
	}
	if s.audit != nil {
		s.audit.Close()
	}
	if cerr := s.snaps.close(mkTime(s.ws.s.Now()), s.files.Unsure()); err == nil {
		err = cerr
	}
	s.closeShell()
	s.calls.Close(s.ws.s.fsys, statCacheName(s.ws.dir))
	s.closeTasks()
	if s.lock != nil {
		release := s.ws.release
		if s.recordStale {
			release = s.ws.releaseKeepingHint // a listing settles the record
		}
		if rerr := release(s.st.ID, s.lock); err == nil {
			err = rerr
		}
		if discarded {
			s.ws.s.fsys.Remove(lockName(s.ws.dir, s.st.ID))
		}
	}
	return err
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

// discardBare removes, at Close, a session this process created that still
// holds only its session line: it was made for something that then wrote
// nothing (a file tool that refused). A session that never held anything is
// not listed and prints no resume line. It reports whether it removed it.
func (s *Session) discardBare() bool {
	if s.bareSize == 0 || s.items == nil || s.items.Size() != s.bareSize {
		return false
	}
	w, id, fsys := s.ws, s.st.ID, s.ws.s.fsys
	for _, n := range []string{changesName(w.dir, id), auditName(w.dir, id), shellName(w.dir, id), outputDir(w.dir, id), taskDir(w.dir, id)} {
		if _, err := fsys.Lstat(n); !vfs.IsNotExist(err) {
			return false
		}
	}
	if err := fsys.Remove(itemsName(w.dir, id)); err != nil {
		return false
	}
	s.items.Close()
	s.items, s.recorded = nil, false
	fsys.Remove(recordName(w.dir, id))
	fsys.SyncDir(path.Dir(itemsName(w.dir, id))) // best effort: a ghost a crash brings back is named by fsck
	return true
}

func ptr[T any](v T) *T { return &v }

func (s *Session) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// warnNearCeiling says once when the session's payloads reach 80% of the
// eager-load ceiling, while there is still room to act.
func (s *Session) warnNearCeiling() {
	if s.ceilingWarned {
		return
	}
	if s.ceiling == 0 {
		s.ceiling = s.ws.s.eagerLimit()
	}
	limit := s.ceiling
	if limit <= 0 || s.st.Bytes*5 < limit*4 {
		return
	}
	s.ceilingWarned = true
	if s.st.Bytes > limit {
		// Past the ceiling at one write: no longer "near" it.
		s.notice(fmt.Sprintf("session %s holds %s of payloads (%d%%), over the %d MB ceiling it can be opened with: "+
			"it will not open again until the ceiling is raised (CAIRN_MAX_EAGER_LOAD_MB=%d for one run, or storage.max_eager_load_mb); "+
			"fork it to carry the useful part forward (cairn fork %s --at ITEM)",
			s.st.ID, errs.SizeMB(s.st.Bytes), s.st.Bytes*100/limit, limit>>20, s.st.Bytes>>20+1, s.st.ID))
		return
	}
	s.notice(fmt.Sprintf("session %s holds %s of payloads (%d%%), past 80%% of the %d MB ceiling it can be opened with: "+
		"fork it to carry the useful part forward (cairn fork %s --at ITEM), or raise storage.max_eager_load_mb",
		s.st.ID, errs.SizeMB(s.st.Bytes), s.st.Bytes*100/limit, limit>>20, s.st.ID))
}
