package bgwork

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	mrand "math/rand/v2"
	"path"
	"strings"
	"sync"
	"time"

	"cairn/engine/ids"
	"cairn/internal/timefmt"
	"cairn/internal/vfs"
	"cairn/journal"
)

// Options tune a Ledger. The zero value is usable.
type Options struct {
	// Now is the clock of the lines; nil means time.Now.
	Now func() time.Time
	// NewItem makes the item id a delivery is reserved under; nil means
	// "i-" and 16 random hex digits (the engine's item ids).
	NewItem func() string
	// MaxLive is how much live (running or cancelling) work the ledger
	// admits at once; 0 means no limit. Settled work never counts.
	MaxLive int
	// Rand picks the words of workflow ids; nil means a source seeded by
	// the runtime.
	Rand *mrand.Rand
}

// Ledger is a session's background-work journal as its owner writes it.
// It is safe for use by several goroutines.
type Ledger struct {
	mu     sync.Mutex
	fsys   vfs.FS
	name   string
	opt    Options
	w      *journal.Writer // nil until the first line, or after a failure
	st     *State
	broken error // a write that failed: nothing more is written until Reopen
	closed bool

	// doubt holds the owners a delivery failed to part way (ordering 6).
	doubt map[string]error
	// deliver serializes the deliveries to each owner.
	deliver map[string]*sync.Mutex
}

// Read folds the journal name without writing to it: what a reader that
// does not own the session sees. Live work there may belong to a process
// that is gone; the caller, who knows the session's owner, says so. A
// missing journal is empty.
func Read(fsys vfs.FS, name string) (*State, error) {
	st := newState()
	var l line
	_, err := journal.Read(fsys, name, func(b []byte) error {
		if decode(b, &l) && !st.apply(&l) {
			st.Skipped++
		}
		return nil
	})
	if err != nil && !vfs.IsNotExist(err) {
		return nil, fmt.Errorf("bgwork: read %s: %w", name, err)
	}
	return st, nil
}

// Open opens the ledger name for the session's owner and recovers it from
// a crash (ordering 7): the work a gone process was running, held work
// aside, is settled interrupted, descendants first, and those results are
// owed to owners that were not interrupted with them. It returns the work
// it interrupted. Nothing is written when there is nothing to recover;
// the journal is made by its first line.
func Open(fsys vfs.FS, name string, opt Options) (*Ledger, []Work, error) {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.NewItem == nil {
		opt.NewItem = newItemID
	}
	st, err := Read(fsys, name)
	if err != nil {
		return nil, nil, err
	}
	l := &Ledger{fsys: fsys, name: name, opt: opt, st: st, doubt: map[string]error{}, deliver: map[string]*sync.Mutex{}}
	var (
		cut   []*Work
		lines []*line
		gone  = map[string]bool{}
	)
	for i := len(st.works) - 1; i >= 0; i-- {
		if w := st.works[i]; w.Live() && !w.Held {
			cut = append(cut, w)
			gone[w.ID] = true
		}
	}
	for _, w := range cut {
		ln := &line{Kind: KindSettle, Work: w.ID, Outcome: Interrupted,
			Text: "interrupted: the process running it ended; its outcome is unknown and it is not run again"}
		if !gone[w.Owner] {
			ln.Item = l.newItem()
		}
		lines = append(lines, ln)
	}
	if err := l.write(lines...); err != nil {
		return nil, nil, err
	}
	out := make([]Work, len(cut))
	for i, w := range cut {
		out[i] = w.copy()
	}
	return l, out, nil
}

// Reopen reads the journal again after a failure broke the ledger, and
// writes again from there: the file, not memory, says what was recorded
// (a line whose sync failed may be in it). It does no crash recovery; the
// Runner reconciles what it runs with what the file says.
func (l *Ledger) Reopen() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrClosed
	}
	st, err := Read(l.fsys, l.name)
	if err != nil {
		return err
	}
	if l.w != nil {
		l.w.Close()
		l.w = nil
	}
	l.st, l.broken = st, nil
	clear(l.doubt)
	return nil
}

// Close closes the journal. Live work stays as it reads: the caller
// settles it first (Runner.Close cancels and drains it).
func (l *Ledger) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	if l.w != nil {
		return l.w.Close()
	}
	return nil
}

// State is a copy of the fold as it stands, for listing and status.
func (l *Ledger) State() *State {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.st.clone()
}

// Stopped reports whether automatic continuation is stopped.
func (l *Ledger) Stopped() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.st.stopped
}

// write appends lines, synced, then folds them in; l.mu is held. A
// failure breaks the ledger until Reopen, and folds nothing in.
func (l *Ledger) write(lines ...*line) error {
	if len(lines) == 0 {
		return nil
	}
	switch {
	case l.closed:
		return ErrClosed
	case l.broken != nil:
		return fmt.Errorf("%w %s until it is opened again: %w", ErrWrite, l.name, l.broken)
	}
	if l.w == nil {
		if err := vfs.MkdirAllDurable(l.fsys, path.Dir(l.name), vfs.DirPerm); err != nil {
			return fmt.Errorf("bgwork: make %s: %w", path.Dir(l.name), err)
		}
		w, _, err := journal.OpenWriter(l.fsys, l.name, journal.Options{Sync: journal.SyncManual, Now: l.opt.Now})
		if err != nil {
			return fmt.Errorf("bgwork: open %s: %w", l.name, err)
		}
		l.w = w
	}
	at := timefmt.Mk(l.opt.Now())
	for _, ln := range lines {
		ln.V, ln.At = 1, at
		if err := l.w.Append(ln); err != nil {
			return l.fail(err)
		}
	}
	if err := l.w.Sync(); err != nil {
		return l.fail(err)
	}
	for _, ln := range lines {
		if !l.st.apply(ln) {
			l.st.Skipped++ // a check above let through what the fold refuses
		}
	}
	return nil
}

func (l *Ledger) fail(err error) error {
	l.broken = err
	l.w.Close()
	l.w = nil
	return fmt.Errorf("%w %s: %w", ErrWrite, l.name, err)
}

func (l *Ledger) newItem() string { return l.opt.NewItem() }

func newItemID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return "i-" + hex.EncodeToString(b)
}

// Admission is what a call asks to start.
type Admission struct {
	// ID is the work's id (ids.Valid), unique in the ledger; "" for a
	// workflow, which gets a word id (WorkflowID).
	ID   string
	Type string // TypeTask, TypeShell or TypeWorkflow
	// Owner is the agent it reports to: "" for the session, or the id of
	// the running child task that starts it.
	Owner string
	Call  string // the tool_call item that starts it
	Label string
	// Background: the call is answered with a receipt now and the result
	// delivered later; otherwise the caller waits for it.
	Background bool
	// Held: it belongs to the session, not to this process (the
	// plumbing); a later Open does not interrupt it.
	Held bool
}

// Receipt is a recorded admission, never a success.
type Receipt struct {
	Work       string    `json:"task_id"`
	Type       string    `json:"type"`
	Call       string    `json:"call,omitempty"`
	Background bool      `json:"background"`
	At         time.Time `json:"at"`
}

// maxLabel is the most bytes of a label kept: one line.
const maxLabel = 200

// Admit records the admission of a; the work may start once it returns.
func (l *Ledger) Admit(a Admission) (Receipt, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !validType(a.Type) {
		return Receipt{}, fmt.Errorf("%w: work type %q", ErrInvalid, a.Type)
	}
	if a.Type == TypeWorkflow && a.ID == "" {
		a.ID = WorkflowID(l.opt.Rand, func(id string) bool { return l.st.by[id] != nil })
	}
	if !ids.Valid(a.ID) {
		return Receipt{}, fmt.Errorf("%w: %q is not a task id", ErrInvalid, a.ID)
	}
	if l.st.by[a.ID] != nil {
		return Receipt{}, fmt.Errorf("%w: %s exists already: continue it, or give the new work another id", ErrRefused, a.ID)
	}
	if err := l.ownerTakes(a.Owner); err != nil {
		return Receipt{}, err
	}
	if err := l.room(); err != nil {
		return Receipt{}, err
	}
	ln := &line{Kind: KindAdmit, Work: a.ID, Type: a.Type, Owner: a.Owner, Call: a.Call, Label: oneLine(a.Label, maxLabel),
		Receipt: a.Background, Held: a.Held}
	if err := l.write(ln); err != nil {
		return Receipt{}, err
	}
	return Receipt{Work: a.ID, Type: a.Type, Call: a.Call, Background: a.Background, At: ln.At.Time}, nil
}

// ownerTakes refuses an owner that cannot own new work: one that is not
// running agent work (a shell job owns nothing), or is cancelling or
// blocked.
func (l *Ledger) ownerTakes(owner string) error {
	if owner == "" {
		return nil
	}
	o := l.st.by[owner]
	switch {
	case o == nil:
		return fmt.Errorf("%w: owner %q", ErrNotFound, owner)
	case o.Type == TypeShell:
		return fmt.Errorf("%w: %s is a shell job: it owns no work", ErrRefused, owner)
	case o.State != StateRunning || o.Blocked:
		return fmt.Errorf("%w: %s is %s: it starts no new work", ErrRefused, owner, o.describe())
	}
	return nil
}

// room refuses an admission over MaxLive.
func (l *Ledger) room() error {
	if l.opt.MaxLive > 0 && l.st.Live() >= l.opt.MaxLive {
		return fmt.Errorf("%w: %d pieces of work are running, the most admitted at once; wait for one to settle", ErrRefused, l.opt.MaxLive)
	}
	return nil
}

// describe is w's state in words.
func (w *Work) describe() string {
	switch {
	case w.State == StateSettled:
		return "settled (" + w.Outcome + ")"
	case w.Blocked:
		return "blocked"
	}
	return w.State
}

// Continue runs settled agent task id again from its saved history, or a
// paused workflow, under the same id, started by call. Running or
// cancelling work cannot be resumed, nor can a shell job or an
// interrupted task.
func (l *Ledger) Continue(id, call string, background bool) (Receipt, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w, err := l.find(id)
	if err != nil {
		return Receipt{}, err
	}
	switch {
	case w.Type == TypeShell:
		return Receipt{}, fmt.Errorf("%w: %s is a shell job: shell jobs are never resumed; run a new command", ErrRefused, id)
	case w.Live():
		return Receipt{}, fmt.Errorf("%w: %s is %s: only settled work can be continued", ErrRefused, id, w.describe())
	case w.Type == TypeWorkflow && w.State != StatePaused:
		return Receipt{}, fmt.Errorf("%w: workflow %s is %s: only a paused workflow is resumed", ErrRefused, id, w.describe())
	case w.Outcome == Interrupted:
		return Receipt{}, fmt.Errorf("%w: %s was interrupted (its outcome is unknown) and is never resumed; start new work", ErrRefused, id)
	}
	if err := l.ownerTakes(w.Owner); err != nil {
		return Receipt{}, err
	}
	if err := l.room(); err != nil {
		return Receipt{}, err
	}
	ln := &line{Kind: KindContinue, Work: id, Call: call, Receipt: background}
	if err := l.write(ln); err != nil {
		return Receipt{}, err
	}
	return Receipt{Work: id, Type: w.Type, Call: call, Background: background, At: ln.At.Time}, nil
}

// find is the work of id, or an error saying why there is none.
func (l *Ledger) find(id string) (*Work, error) {
	if !ids.Valid(id) {
		return nil, fmt.Errorf("%w: %q is not a task id", ErrInvalid, id)
	}
	w := l.st.by[id]
	if w == nil {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	return w, nil
}

// Promote moves running agent task id, whose caller waits for it, to the
// background without restarting it: its caller gets a receipt and its
// result is delivered. Whether the policy allows it (task auto) is the
// caller's to check. Shell jobs are never promoted.
func (l *Ledger) Promote(id string) (Receipt, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w, err := l.find(id)
	if err != nil {
		return Receipt{}, err
	}
	switch {
	case w.Type != TypeTask:
		return Receipt{}, fmt.Errorf("%w: %s is a %s: only an agent task is moved to the background", ErrRefused, id, typeWord(w.Type))
	case w.State != StateRunning:
		return Receipt{}, fmt.Errorf("%w: %s is %s: only a running task is moved to the background", ErrRefused, id, w.describe())
	case w.Background:
		return Receipt{}, fmt.Errorf("%w: %s runs in the background already", ErrRefused, id)
	}
	ln := &line{Kind: KindPromote, Work: id}
	if err := l.write(ln); err != nil {
		return Receipt{}, err
	}
	return Receipt{Work: id, Type: w.Type, Call: w.Calls[len(w.Calls)-1], Background: true, At: ln.At.Time}, nil
}

func typeWord(t string) string {
	if t == TypeShell {
		return "shell job"
	}
	return t
}

// Pause records that running workflow id paused: not running, not
// settled; Continue resumes it under the same id.
func (l *Ledger) Pause(id string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	w, err := l.find(id)
	if err != nil {
		return err
	}
	if w.Type != TypeWorkflow || w.State != StateRunning {
		return fmt.Errorf("%w: %s is not a running workflow", ErrRefused, id)
	}
	return l.write(&line{Kind: KindPause, Work: id})
}

// Cancel marks running work id cancelling; it shows so until it settles.
// Cancelling work that is cancelling already changes nothing; a paused
// workflow, which runs nothing, settles cancelled at once. It returns the
// work as it now stands.
func (l *Ledger) Cancel(id string) (Work, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w, err := l.find(id)
	if err != nil {
		return Work{}, err
	}
	switch w.State {
	case StateCancelling:
		return w.copy(), nil
	case StateSettled:
		return Work{}, fmt.Errorf("%w: %s is settled (%s): nothing to cancel", ErrRefused, id, w.Outcome)
	case StatePaused:
		err = l.settle(w, Result{Outcome: Cancelled, Text: "cancelled while paused"}, true)
	default:
		err = l.write(&line{Kind: KindCancel, Work: id})
	}
	if err != nil {
		return Work{}, err
	}
	return w.copy(), nil
}

// Result is how a run of work ended.
type Result struct {
	Outcome string // Succeeded when empty
	Text    string
	// Output names a tool output that holds what the work printed; it is
	// durable before Settle is called.
	Output string
}

// Settle records that work id settled with r and returns the delivery it
// owes, if any: a result is delivered when its run was answered with a
// receipt (the caller of a waited run has it already). Work that made a
// blocked report settles blocked. Work that still owns live work is
// refused: its jobs are cancelled and drained first.
func (l *Ledger) Settle(id string, r Result) (*Delivery, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w, err := l.find(id)
	if err != nil {
		return nil, err
	}
	if w.State == StateSettled {
		return nil, fmt.Errorf("%w: %s is settled already (%s)", ErrRefused, id, w.Outcome)
	}
	if err := l.settle(w, r, w.Background); err != nil {
		return nil, err
	}
	if d := l.st.lastOwed(w.ID); d != nil {
		c := *d
		return &c, nil
	}
	return nil, nil
}

// Abandon settles work id failed without a delivery: for work whose
// admission its caller was told had failed (its line was written after
// all), so that it does not read as running.
func (l *Ledger) Abandon(id, why string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	w, err := l.find(id)
	if err != nil {
		return err
	}
	if w.State == StateSettled {
		return nil
	}
	return l.settle(w, Result{Outcome: Failed, Text: why}, false)
}

// settle writes w's settle line; l.mu is held.
func (l *Ledger) settle(w *Work, r Result, deliver bool) error {
	if r.Outcome == "" {
		r.Outcome = Succeeded
	}
	if !validOutcome(r.Outcome) {
		return fmt.Errorf("%w: outcome %q", ErrInvalid, r.Outcome)
	}
	if w.Blocked {
		r.Outcome = Blocked
	}
	for _, o := range l.st.works {
		if o.Owner == w.ID && o.Live() {
			return fmt.Errorf("%w: %s still runs %s: cancel and drain its work before it settles", ErrRefused, w.ID, o.ID)
		}
	}
	ln := &line{Kind: KindSettle, Work: w.ID, Outcome: r.Outcome, Text: r.Text, Output: r.Output}
	if deliver {
		ln.Item = l.newItem()
	}
	return l.write(ln)
}

// lastOwed is the latest delivery of work id still owed, or nil.
func (s *State) lastOwed(id string) *Delivery {
	for i := len(s.deliveries) - 1; i >= 0; i-- {
		if d := s.deliveries[i]; d.Work == id {
			if d.Delivered {
				return nil
			}
			return d
		}
	}
	return nil
}

// Report records report r of running agent work from, owed to its owner,
// and returns that delivery. A blocked report marks the work blocked: it
// starts no new work and settles blocked (the Runner ends it).
func (l *Ledger) Report(from string, r Report) (Delivery, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w, err := l.find(from)
	if err != nil {
		return Delivery{}, err
	}
	switch {
	case w.Type == TypeShell:
		return Delivery{}, fmt.Errorf("%w: %s is a shell job: only an agent reports to its parent", ErrRefused, from)
	case !w.Live():
		return Delivery{}, fmt.Errorf("%w: %s is %s: only running work reports", ErrRefused, from, w.describe())
	}
	ln := &line{Kind: KindReport, Work: from, Item: l.newItem(), Title: r.Title, Message: r.Message, Blocked: r.Blocked}
	if err := l.write(ln); err != nil {
		return Delivery{}, err
	}
	return *l.st.items[ln.Item], nil
}

// Stop records a stop of all work (ordering 8) and returns the live work
// the caller is to cancel (held work aside). From here to the next
// UserTurn, what is delivered does not wake its owner.
func (l *Ledger) Stop() ([]Work, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.st.stopped {
		if err := l.write(&line{Kind: KindStop}); err != nil {
			return nil, err
		}
	}
	var out []Work
	for _, w := range l.st.works {
		if w.Live() && !w.Held {
			out = append(out, w.copy())
		}
	}
	return out, nil
}

// UserTurn records that a user turn began: automatic continuation is on
// again. It writes nothing when it was not stopped.
func (l *Ledger) UserTurn() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.st.stopped {
		return nil
	}
	return l.write(&line{Kind: KindResume})
}

// oneLine is s on one line (runs of white space made one space), cut to
// at most n bytes at a UTF-8 boundary.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n]
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// clone is a deep copy of s, for a caller outside the lock.
func (s *State) clone() *State {
	c := &State{by: make(map[string]*Work, len(s.works)), items: make(map[string]*Delivery, len(s.deliveries)),
		owed: s.owed, stopped: s.stopped, Skipped: s.Skipped}
	for _, w := range s.works {
		cw := w.copy()
		c.works = append(c.works, &cw)
		c.by[cw.ID] = &cw
	}
	for _, d := range s.deliveries {
		cd := *d
		c.deliveries = append(c.deliveries, &cd)
		c.items[cd.Item] = &cd
	}
	return c
}
