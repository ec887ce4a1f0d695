package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"sync"
	"time"

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
	st *state

	lock  vfs.Lock
	items *journal.Writer
	audit *journal.Writer
	snaps snapStack // the undo stack of file tools (changes*.go)
	files fileSyncs // the file tools' background folder syncs
	// busy is held (shared) by a file tool or an undo while it runs, and
	// by Close, so Close waits for them and none starts after it.
	busy  sync.RWMutex
	shell *shellLog // shell history, made on first use (shell.go)
	// noted: the folders the owner's hint names, where file tools stage
	// temp files (temps.go); guarded by snaps.mu.
	noted map[string]bool

	opts SessionOptions
	// recorded: the session's files exist. unrecorded: writing failed and
	// the session goes on in memory (Degrade mode), keeping what it could
	// not write until it can (degrade.go).
	recorded   bool
	unrecorded error
	kept       degraded
	// readOnly: opened without ownership, its state folder not writable
	// (session_readonly.go). It is never written, even if the folder
	// becomes writable: another process may own it by then.
	readOnly      bool
	closed        bool
	resume        ResumeInfo
	recordOff     int64 // items journal size the record reflects
	recordDurable bool  // the record at recordOff was synced
	recordTitle   string
	// bareSize is the size of the items journal this process created with
	// nothing but its session line (0 otherwise): a session that still
	// holds only that when it closes is removed (discardBare).
	bareSize      int64
	recordAt      time.Time
	genTitled     bool
	ceilingWarned bool
	ceiling       int64 // the eager-load ceiling in bytes, read once
	// trailPending counts turns whose trail lines are not synced yet, and
	// usagePending says a usage line of this session may not be (turn_settle.go).
	trailPending  int
	usagePending  bool
	usageQueue    []UsageLine // usage lines not written yet (turnend.go)
	usageAt       time.Time   // when they were last written
	recordSettled int         // the settled turn the last record written says
}

// SessionOptions change how a session is created or opened.
type SessionOptions struct {
	// Degrade keeps a session running when it cannot be written (a full
	// disk, a missing home): after Notice is told once, the session goes
	// on in memory, keeping the lines it could not write; each later write
	// tries again, and once one works the kept lines are written, in
	// order, and Notice is told so. Without it, a failed write is
	// returned as an error.
	Degrade bool
	// Notice receives the one-line messages a session shows its user.
	Notice func(string)
	// Ephemeral labels spend in the usage ledger as ephemeral.
	Ephemeral bool
	// NoSnapshots: file tools capture nothing and record no change lines.
	NoSnapshots bool
}

// ResumeInfo says what changed since the session last ran.
type ResumeInfo struct {
	BranchBefore, Branch string // differ when the branch changed
	BuildBefore, Build   string // differ when another build wrote the session
	AskTrust             bool   // the record predates trust maps: ask the trust question again
	Repaired             int64  // bytes cut from a torn journal tail
}

// Create starts a new session in the workspace. Nothing is written until
// the first item arrives.
func (w *Workspace) Create(opts SessionOptions) *Session {
	s := &Session{ws: w, opts: opts, st: newState(newSessionID(), w.path)}
	s.st.build = Version
	s.st.branch = gitBranch(w.path)
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
	// The hint, read before the lock: acquire replaces it.
	noted, ownerDied := w.readHint(id)
	l, err := w.acquire(id)
	var busy *BusyError
	if err != nil && opts.Degrade && !errors.As(err, &busy) {
		return w.openReadOnly(ctx, id, opts, err) // session_readonly.go
	}
	if err != nil {
		return nil, err
	}
	s := &Session{ws: w, opts: opts, lock: l, recorded: true, st: newState(id, w.path)}
	if err := s.load(ctx); err != nil {
		w.release(id, l)
		return nil, err
	}
	w.cleanOutputsOnOpen(ctx) // best effort (outputs_clean.go)
	w.removeTemps(id, ownerDied, noted)
	w.removeUnmade()
	return s, nil
}

// load folds the journal, opens it for appending (cutting a torn tail),
// records the open, and rebuilds the record when it disagrees.
func (s *Session) load(ctx context.Context) error {
	w := s.ws
	id := s.st.id
	// The journal is read before it is opened for appending, so a session
	// that cannot be read is refused before anything is written to it.
	st, err := w.fold(ctx, id, foldOptions{hydrate: true, limit: w.s.eagerLimit()})
	if err != nil {
		return err
	}
	if st.unreadable() {
		return w.unreadableError(id)
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
	if msg := st.unavailableNotice(); msg != "" {
		s.notice(msg)
	}
	s.kept.items.durable(wr.Size())
	// Turns the record does not call settled (a crash, a rebuilt record)
	// get back the trail and usage lines a crash may have lost. Best
	// effort: what cannot be put back now is tried at the next open.
	rec, rerr := readRecord(w.s.fsys, w.dir, id)
	if rerr == nil {
		st.settled = min(rec.SettledTurn, st.turns)
	}
	if st.turns > st.settled {
		if err := s.settleTurns(); err != nil {
			s.notice(fmt.Sprintf("the trail or usage lines of session %s's last turns could not be checked: %v", id, err))
		}
	}
	// The record is derived: rebuild it now only when it is missing,
	// unreadable or older than the journal. The open line below is synced
	// with the next turn or on Close.
	if rerr != nil || rec.Journals["items"] != wr.Size() || rec.SettledTurn != st.settled {
		if err := writeRecord(w.s.fsys, w.dir, st.record(map[string]int64{"items": wr.Size()})); err != nil {
			return s.degrade(err)
		}
	}
	s.recordOff, s.recordDurable, s.recordSettled = wr.Size(), true, st.settled
	s.resume = ResumeInfo{BranchBefore: st.branch, BuildBefore: st.build, Branch: gitBranch(w.path),
		Build: Version, AskTrust: st.trust == nil, Repaired: rep.Cut}
	now := w.s.Now()
	if err := s.writeLine(&itemLine{V: 1, Kind: kindOpen, At: ptr(mkTime(now)), Branch: s.resume.Branch, Build: Version, PID: os.Getpid()}); err != nil {
		return err
	}
	s.st.opened = mkTime(now)
	s.st.branch, s.st.build = s.resume.Branch, Version
	return nil
}

// ID is the session id.
func (s *Session) ID() string { return s.st.id }

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
	return s.st.record(nil)
}

// Head is the id of the head item ("" for an empty conversation).
func (s *Session) Head() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.head
}

// Transcript is the conversation on the head path, oldest first.
func (s *Session) Transcript() []Item {
	s.mu.Lock()
	defer s.mu.Unlock()
	return copyItems(s.st.headPath())
}

// AllItems is every item of every branch, in the order they were written.
func (s *Session) AllItems() []Item {
	s.mu.Lock()
	defer s.mu.Unlock()
	return copyItems(s.st.all())
}

func copyItems(in []*Item) []Item {
	out := make([]Item, len(in))
	for i, it := range in {
		out[i] = *it
	}
	return out
}

// materialize writes the session's files the first time it holds something:
// the workspace folder, the lock, and the items journal with its session line
// and first (the line that makes the session worth keeping, when there is
// one). The journal appears whole, by one rename (journal.Create), so a
// session exists with its first lines or not at all; a failure leaves
// nothing behind, its lock file included.
func (s *Session) materialize(first ...*itemLine) error {
	if s.recorded {
		return nil
	}
	w := s.ws
	if err := w.ensure(); err != nil {
		return err
	}
	l, err := w.acquire(s.st.id)
	if err != nil {
		return err
	}
	now := mkTime(w.s.Now())
	lines := []any{&itemLine{V: 1, Kind: kindSession, Session: s.st.id, Path: w.path, At: &now, ForkOf: s.st.forkOf, Build: Version, Branch: s.st.branch}}
	for _, f := range first {
		lines = append(lines, f)
	}
	wr, err := journal.Create(w.s.fsys, itemsName(w.dir, s.st.id), lines, journal.Options{Sync: journal.SyncManual, Now: w.s.now})
	if err != nil {
		// Whether or not the journal got its name, the session is not
		// there: no one else knows its id, so nothing of it is kept.
		w.s.fsys.Remove(itemsName(w.dir, s.st.id))
		w.release(s.st.id, l)
		w.s.fsys.Remove(lockName(w.dir, s.st.id))
		return fmt.Errorf("engine: create session %s: %w", s.st.id, err)
	}
	s.lock, s.items, s.recorded = l, wr, true
	// journal.Create synced the lines it was given: they are durable.
	s.kept.items.durable(wr.Size())
	if len(first) == 0 {
		s.bareSize = wr.Size()
	}
	s.st.created, s.st.opened = now, now
	s.st.touch(now)
	return nil
}

// writeLine appends one line to the items journal, creating the session's
// files first when needed. In Degrade mode a failure turns the session
// unrecorded (said once) and is not returned: the line is kept, and
// written, after the ones kept before it, once the session can be
// recorded again.
func (s *Session) writeLine(l *itemLine) error {
	if s.closed {
		return fmt.Errorf("engine: session %s is closed", s.st.id)
	}
	s.retry()
	if s.unrecorded != nil {
		s.kept.items.waiting = append(s.kept.items.waiting, l)
		return nil
	}
	var err error
	if !s.recorded {
		err = s.materialize(l)
	} else {
		err = s.appendItem(l)
	}
	if err != nil && s.opts.Degrade {
		s.kept.items.waiting = append(s.kept.items.waiting, l)
	}
	return s.degrade(err)
}

// keepLine keeps l to be written once the session is recorded again.
func (s *Session) keepLine(l *itemLine) error {
	if s.closed {
		return fmt.Errorf("engine: session %s is closed", s.st.id)
	}
	s.kept.items.waiting = append(s.kept.items.waiting, l)
	return nil
}

// degrade applies the Degrade option to a write error.
func (s *Session) degrade(err error) error {
	if err == nil {
		return nil
	}
	var busy *BusyError
	if !s.opts.Degrade || errors.As(err, &busy) {
		return err
	}
	s.unrecorded = err
	s.notice(fmt.Sprintf("this session cannot be recorded for now (%v); it goes on unrecorded, "+
		"keeps what it could not write, and writes it once it can", err))
	return nil
}

func (s *Session) notice(msg string) {
	if s.opts.Notice != nil {
		s.opts.Notice(msg)
	}
}

// Append adds an item to the conversation, after the head unless Parent is
// set, and moves the head to it. The item is written but not synced: it is
// durable once the turn ends (EndTurn) or Commit returns.
func (s *Session) Append(ctx context.Context, it Item) (Item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !it.Type.valid() {
		return Item{}, fmt.Errorf("%w: item type %q", ErrBadInput, it.Type)
	}
	if it.Parent == "" {
		it.Parent = s.st.head
	} else if s.st.items[it.Parent] == nil {
		return Item{}, &noItem{it.Parent, s.st.id}
	}
	if it.Quarantined {
		it.Text = "" // quarantined content is never written
	}
	it.ID = newItemID()
	it.At = mkTime(s.ws.s.Now())
	l := &itemLine{V: 1, Kind: kindItem, ID: it.ID, Type: it.Type, At: &it.At, Tool: it.Tool, Call: it.Call,
		Status: it.Status, Quarantined: it.Quarantined, Slot: it.Slot, Replaces: it.Replaces, Outputs: it.Outputs}
	if it.Parent != "" {
		l.Parent = &it.Parent
	}
	if err := s.readyForItem(); err != nil {
		return Item{}, err
	}
	switch {
	case it.Quarantined:
		// only the slot name is written
	case len(it.Text) > payloadInline && s.unrecorded == nil:
		p, err := writePayload(ctx, s.ws.objects(), it.Text)
		if err = s.degrade(err); err != nil {
			return Item{}, err
		}
		l.Payload = p
	default:
		l.Text = &it.Text
	}
	write := s.writeLine
	if l.Payload == nil && l.Text == nil && !it.Quarantined {
		// Its payload could not be stored: the line is kept, text
		// inline, and written with a payload once the session is
		// recorded again; it is not tried again at once.
		l.Text = &it.Text
		write = s.keepLine
	}
	if err := write(l); err != nil {
		return Item{}, err
	}
	cp := it
	s.st.apply(&itemLine{V: 1, Kind: kindItem, ID: it.ID, Parent: l.Parent, Type: it.Type, At: &it.At, Text: &cp.Text,
		Tool: it.Tool, Call: it.Call, Status: it.Status, Quarantined: it.Quarantined, Slot: it.Slot, Replaces: it.Replaces, Outputs: it.Outputs})
	s.warnNearCeiling()
	if it.Type == User && s.st.titleSource == "" {
		t := titleFromPrompt(it.Text)
		if err := s.writeLine(&itemLine{V: 1, Kind: kindTitle, Title: t, Source: "prompt", At: &it.At}); err != nil {
			return Item{}, err
		}
		s.st.title, s.st.titleSource = t, "prompt"
	}
	return it, nil
}

// readyForItem makes the workspace folder before an item's payload object is
// stored there. The session's own files are made with the item's line. An
// unrecorded session tries to be recorded again first.
func (s *Session) readyForItem() error {
	s.retry()
	if s.recorded || s.unrecorded != nil {
		return nil
	}
	return s.degrade(s.ws.ensure())
}

// materializeForItem creates the session's files before something of its own
// is written beside them (a change record, a tool output, shell history). An
// unrecorded session tries to be recorded again first.
func (s *Session) materializeForItem() error {
	s.retry()
	if s.recorded || s.unrecorded != nil {
		return nil
	}
	return s.degrade(s.materialize())
}

// Commit makes everything written so far durable and rewrites the record.
func (s *Session) Commit(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.commitLocked()
}

func (s *Session) commitLocked() error { return s.commit(nil) }

// commit makes the journals durable — the items journal, the trail and
// also, when given, extra (the usage ledger's line of this turn) — with their
// fsyncs running at once, so a turn waits for about one sync, not one per
// file, and waits for the file tools' folder syncs meanwhile. Then it
// replaces the record. The record is derived: it is replaced atomically but
// not synced here (a crash may leave it old, or unreadable, and it is then
// rebuilt from the journal); Close writes it durably.
func (s *Session) commit(extra syncer) error {
	err, filesErr := s.commitParts(extra, true)
	if err != nil {
		return err
	}
	return filesErr
}

// commitTurn is commit at a turn's end: the trail is synced only every
// trailSyncEvery turns (turn_settle.go), so a turn waits for the items
// journal's sync alone.
func (s *Session) commitTurn(extra syncer) error {
	err, filesErr := s.commitParts(extra, s.trailPending >= trailSyncEvery)
	if err != nil {
		return err
	}
	return filesErr
}

// commitParts is commit, with the failure of the session's own files (err)
// apart from that of the file tools' folder syncs (filesErr): the record
// is written after the journals are synced whatever the folders did. The
// trail is synced when trail says so.
func (s *Session) commitParts(extra syncer, trail bool) (err, filesErr error) {
	// The turn's file tools' folder syncs, under way in the background,
	// end while the journals are synced.
	files := make(chan error, 1)
	go func() { files <- s.files.sync() }()
	s.retry()
	if s.recorded && s.unrecorded == nil {
		syncs := []syncer{s.items}
		if s.audit != nil && trail {
			syncs = append(syncs, s.audit)
		}
		if extra != nil {
			syncs = append(syncs, extra)
		}
		if err = syncAll(syncs); err != nil {
			s.kept.items.syncFailed, s.kept.audit.syncFailed = true, true
			err = s.degrade(fmt.Errorf("engine: sync session: %w", err))
		} else {
			s.kept.items.durable(s.items.Size())
			if trail && s.audit != nil {
				s.kept.audit.durable(s.audit.Size())
				s.trailPending = 0
			}
			err = s.writeRecordLocked(false)
		}
	}
	return err, <-files
}

// commitDurable syncs the journals and writes the record durably: the
// state a session is left in when it closes.
func (s *Session) commitDurable() error {
	err, filesErr := s.commitParts(nil, true)
	// The usage lines still queued go to the ledger whatever became of
	// the session's own files (the ledger is the store's), and it is
	// synced. A ledger that fails leaves the turns unsettled, for the next
	// open to put back.
	lerr := s.flushUsage()
	if lerr == nil && s.usagePending {
		lerr = s.ws.s.ledgerStore().syncLedger()
	}
	if lerr != nil {
		s.notice(fmt.Sprintf("the usage ledger could not be written: %v; the next open puts this session's lines back", lerr))
	}
	if err == nil && s.recorded && s.unrecorded == nil && !s.readOnly {
		// The trail is synced; with the ledger, every turn is settled.
		if lerr == nil {
			s.usagePending = false
			s.st.settled = s.st.turns
		}
		err = s.writeRecordLocked(true)
	}
	if err != nil {
		return err
	}
	return filesErr
}

// writeRecordLocked replaces the record when the journal moved since the
// last one; durable makes it survive a crash as well.
func (s *Session) writeRecordLocked(durable bool) error {
	if s.recordOff == s.items.Size() && (!durable || s.recordDurable) && s.recordSettled == s.st.settled {
		return nil
	}
	// Between turns the record is refreshed at most every recordEvery, or
	// at once when what the picker shows first (the title) changed: a live
	// session is marked as owned in the picker anyway, and the record is
	// written durably when it closes.
	now := s.ws.s.now()
	if !durable && s.recordTitle == s.st.title && now.Sub(s.recordAt) < recordEvery {
		return nil
	}
	r := s.st.record(map[string]int64{"items": s.items.Size()})
	write := writeRecord
	if !durable {
		write = replaceRecord
	}
	if err := write(s.ws.s.fsys, s.ws.dir, r); err != nil {
		return s.degrade(err)
	}
	s.recordOff, s.recordDurable = s.items.Size(), durable
	s.recordTitle, s.recordAt, s.recordSettled = s.st.title, now, s.st.settled
	return nil
}

// recordEvery is how often a live session's record is refreshed between
// turns when its title has not changed.
const recordEvery = 2 * time.Second

// syncer is a journal that can be made durable.
type syncer interface{ Sync() error }

// syncAll syncs every journal at once and returns the first error.
func syncAll(js []syncer) error {
	if len(js) == 1 {
		return js[0].Sync()
	}
	errs := make([]error, len(js))
	var wg sync.WaitGroup
	for i, j := range js {
		wg.Go(func() { errs[i] = j.Sync() })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Close makes the session durable and gives up ownership.
func (s *Session) Close() error {
	s.busy.Lock()
	defer s.busy.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	discarded := s.discardBare()
	err := s.commitDurable()
	if n := s.kept.lost(); n > 0 && s.unrecorded != nil && !s.readOnly {
		s.notice(fmt.Sprintf("%d items of this session were kept in memory only and may be lost: %v", n, s.unrecorded))
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
	s.snaps.close(mkTime(s.ws.s.Now()))
	s.shell.close()
	if s.lock != nil {
		if rerr := s.ws.release(s.st.id, s.lock); err == nil {
			err = rerr
		}
		if discarded {
			s.ws.s.fsys.Remove(lockName(s.ws.dir, s.st.id))
		}
	}
	return err
}

// discardBare removes, at Close, a session this process created that still
// holds only its session line: it was made for something that then wrote
// nothing (a file tool that refused). A session that never held anything is
// not listed and prints no resume line. It reports whether it removed it.
func (s *Session) discardBare() bool {
	if s.bareSize == 0 || s.items == nil || s.items.Size() != s.bareSize {
		return false
	}
	w, id, fsys := s.ws, s.st.id, s.ws.s.fsys
	for _, n := range []string{changesName(w.dir, id), auditName(w.dir, id), shellName(w.dir, id), outputDir(w.dir, id)} {
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
	if limit <= 0 || s.st.bytes*5 < limit*4 {
		return
	}
	s.ceilingWarned = true
	s.notice(fmt.Sprintf("session %s holds %s of payloads (%d%%), past 80%% of the %d MB ceiling it can be opened with: "+
		"fork it to carry the useful part forward (cairn fork %s --at ITEM), or raise storage.max_eager_load_mb",
		s.st.id, sizeMB(s.st.bytes), s.st.bytes*100/limit, limit>>20, s.st.id))
}
