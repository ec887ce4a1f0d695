package bgwork

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	mrand "math/rand/v2"
	"path"
	"sync"
	"time"

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

// Work is work id as it stands (State().Work without copying the whole
// state for one piece of work).
func (l *Ledger) Work(id string) (Work, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.st.Work(id)
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
