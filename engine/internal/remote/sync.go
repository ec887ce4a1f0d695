package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"cairn/engine/internal/errs"
	"cairn/internal/vfs"
)

// Local is what a sync needs of the state folder beyond its files: the
// sessions, their ownership and where a pulled one goes. The engine
// supplies it; the package knows the layout of the state folder's files but
// takes no lock and makes no workspace itself.
type Local interface {
	FS() vfs.FS
	// Sessions lists the saved sessions of every workspace.
	Sessions(ctx context.Context) ([]SessionRef, error)
	// Hold takes ownership of a session for a pull's writes, or fails at
	// once when another process owns it.
	Hold(ctx context.Context, ws, id string) (release func(), err error)
	// Place returns the workspace folder for a session that ran in
	// directory path on its machine, making it when needed.
	Place(ctx context.Context, path string) (ws string, err error)
	// Settle rebuilds what is derived from a session's journals after a
	// pull wrote them (its record, the picker's index).
	Settle(ctx context.Context, ws, id string)
	// Card describes a local session for the remote's listing.
	Card(ctx context.Context, ws, id string) Card
}

// SessionRef is one local session: its id, its workspace folder and the
// directory it belongs to.
type SessionRef struct {
	ID   string
	WS   string
	Path string
	// Sizes are the sizes of its journals in sessions/ as a listing saw
	// them (ListSessions), nil when not known; Tasks says it has a tasks
	// folder. With them a push passes over an unchanged session without
	// opening its files.
	Sizes map[string]int64
	Tasks bool
	// Held says a writer held it when it was looked at (its lock file
	// named an owner): it may change after a push looks at it.
	Held bool
}

// Syncer pushes to and pulls from one remote.
type Syncer struct {
	Name    string // the remote's name here
	URL     string
	Machine string // this machine's name on the remote
	Bucket  Bucket
	Local   Local
	Now     func() time.Time
	// Progress, when set, hears of bytes moved: phase is "push" or
	// "pull", done and total in bytes (total grows as work is found).
	Progress func(phase string, done, total int64)
	// Workers is how many transfers run at once (16 when 0).
	Workers int

	st     *State
	pushed *pushedSet
	held   vfs.Lock   // the lock on the remote's state while a sync runs
	mu     sync.Mutex // guards st, pushed, rep and the progress counts
	rep    *Report
	done   int64
	total  int64
}

// Report says what a sync did.
type Report struct {
	Remote  string    `json:"remote"`
	Machine string    `json:"machine"`
	Pushed  Moved     `json:"pushed"`
	Pulled  Moved     `json:"pulled"`
	Skipped []Skipped `json:"skipped"`
	Notes   []string  `json:"notes"`
}

// Moved counts what went one way.
type Moved struct {
	Sessions     int   `json:"sessions"`
	Segments     int   `json:"segments"`
	Objects      int   `json:"objects"`
	ObjectsThere int   `json:"objects_there"` // offered, found on the remote already
	Outputs      int   `json:"outputs"`
	Bytes        int64 `json:"bytes"`
}

// Skipped is a session a sync left as it was, and why.
type Skipped struct {
	Session string `json:"session"`
	Why     string `json:"why"`
}

func (s *Syncer) note(format string, args ...any) {
	s.mu.Lock()
	s.rep.Notes = append(s.rep.Notes, fmt.Sprintf(format, args...))
	s.mu.Unlock()
}

func (s *Syncer) skip(id, why string) {
	s.mu.Lock()
	s.rep.Skipped = append(s.rep.Skipped, Skipped{Session: id, Why: why})
	s.mu.Unlock()
}

func (s *Syncer) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

func (s *Syncer) workers() int {
	if s.Workers > 0 {
		return s.Workers
	}
	return 16
}

func (s *Syncer) addTotal(phase string, n int64) {
	s.mu.Lock()
	s.total += n
	d, t := s.done, s.total
	s.mu.Unlock()
	if s.Progress != nil {
		s.Progress(phase, d, t)
	}
}

func (s *Syncer) addDone(phase string, n int64) {
	s.mu.Lock()
	s.done += n
	d, t := s.done, s.total
	s.mu.Unlock()
	if s.Progress != nil {
		s.Progress(phase, d, t)
	}
}

// begin takes the lock on the remote's state (hold), loads the state and
// checks the remote's format marker, writing it on a new remote. The
// caller calls end once begin returned nil.
func (s *Syncer) begin(ctx context.Context) error {
	if err := s.hold(); err != nil {
		return err
	}
	st, err := LoadState(s.Local.FS(), s.Name, s.URL)
	if err == nil {
		s.st = st
		s.rep = &Report{Remote: s.Name, Machine: s.Machine, Skipped: []Skipped{}, Notes: []string{}}
		err = CheckFormat(ctx, s.Bucket)
	}
	if err != nil {
		s.end()
		return err
	}
	return nil
}

// syncLockName is the lock file of a remote's state in the state folder.
func syncLockName(name string) string { return path.Join(StateDir(name), "sync.lock") }

// hold takes the lock on the remote's state in this state folder, which a
// sync holds from its load of the state to its last save: two syncs of
// one remote at once (a push at a turn's end while the user syncs) would
// each save what they loaded over what the other saved. A second sync is
// refused at once with ErrStateBusy.
func (s *Syncer) hold() error {
	fsys := s.Local.FS()
	if err := vfs.MkdirAllDurable(fsys, StateDir(s.Name), vfs.DirPerm); err != nil {
		return fmt.Errorf("remote: state of %s: %w", s.Name, err)
	}
	l, err := fsys.Lock(syncLockName(s.Name))
	if errors.Is(err, vfs.ErrLocked) {
		return &stateBusyError{name: s.Name}
	}
	if err != nil {
		return fmt.Errorf("remote: state of %s: %w", s.Name, err)
	}
	s.held = l
	return nil
}

// stateBusyError is ErrStateBusy, and the engine's ErrBusy (exit code 4).
type stateBusyError struct{ name string }

func (e *stateBusyError) Error() string {
	return "remote: " + e.name + ": " + ErrStateBusy.Error() + "; try again when it ends"
}

func (e *stateBusyError) Unwrap() []error { return []error{ErrStateBusy, errs.ErrBusy} }

// end releases the lock hold took.
func (s *Syncer) end() {
	if s.held != nil {
		s.held.Release()
		s.held = nil
	}
}

// CheckFormat reads the remote's format marker, writing it when the
// remote has none; a newer format is refused.
func CheckFormat(ctx context.Context, b Bucket) error {
	data, _, err := b.Get(ctx, formatKey)
	if errors.Is(err, ErrNotFound) {
		mark, _ := json.Marshal(map[string]int{"v": 1, "format": remoteFormat})
		err = putBytes(ctx, b, formatKey, mark, Cond{IfAbsent: true})
		if errors.Is(err, ErrExists) {
			return CheckFormat(ctx, b)
		}
		return err
	}
	if err != nil {
		return err
	}
	var f struct {
		Format int `json:"format"`
	}
	if json.Unmarshal(data, &f) != nil || f.Format < 1 {
		return fmt.Errorf("remote: %s is not a cairn remote's marker", formatKey)
	}
	if f.Format > remoteFormat {
		return fmt.Errorf("remote: format %d is newer than this cairn reads (%d): update cairn", f.Format, remoteFormat)
	}
	return nil
}

// Sync pushes what this machine has that the remote lacks, then pulls
// what other machines pushed.
func (s *Syncer) Sync(ctx context.Context) (*Report, error) {
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	defer s.end()
	if err := s.push(ctx); err != nil {
		s.st.Save(s.Local.FS(), s.Name)
		return s.rep, err
	}
	if err := s.pull(ctx); err != nil { // pull saves the state
		return s.rep, err
	}
	return s.rep, nil
}

// Push only pushes (sync --watch at each turn's end).
func (s *Syncer) Push(ctx context.Context) (*Report, error) {
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	defer s.end()
	err := s.push(ctx)
	if serr := s.st.Save(s.Local.FS(), s.Name); serr != nil && err == nil {
		err = serr
	}
	return s.rep, err
}

// Pull only pulls.
func (s *Syncer) Pull(ctx context.Context) (*Report, error) {
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	defer s.end()
	return s.rep, s.pull(ctx)
}

// Cards reads the remote's log as far as it goes and returns what it
// says of every session not forgotten, newest first. It downloads no
// journal and no object.
func (s *Syncer) Cards(ctx context.Context) ([]Card, error) {
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	defer s.end()
	return s.cards(ctx)
}

// cards is Cards once the sync began.
func (s *Syncer) cards(ctx context.Context) ([]Card, error) {
	if _, err := s.readLogs(ctx); err != nil {
		return nil, err
	}
	if err := s.st.Save(s.Local.FS(), s.Name); err != nil {
		return nil, err
	}
	s.st.wantAll()
	out := make([]Card, 0, len(s.st.Cards))
	for id, c := range s.st.Cards {
		if !s.st.Forgotten[id] {
			out = append(out, *c)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].UpdatedAt != out[j].UpdatedAt {
			return out[i].UpdatedAt > out[j].UpdatedAt
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// each runs fn over n items with the syncer's workers; the first error
// stops the rest and is returned.
func (s *Syncer) each(ctx context.Context, n int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		emu   sync.Mutex
		first error
		next  = make(chan int)
	)
	for range min(s.workers(), max(n, 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := fn(ctx, i); err != nil {
					emu.Lock()
					if first == nil {
						first = err
						cancel()
					}
					emu.Unlock()
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		select {
		case next <- i:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(next)
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		// The caller's context ended.
		return context.Cause(ctx)
	}
	return first
}

// PullSession reads the log and pulls session id alone.
func (s *Syncer) PullSession(ctx context.Context, id string) (*Report, error) {
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	defer s.end()
	if _, err := s.readLogs(ctx); err != nil {
		return s.rep, err
	}
	err := s.pullSession(ctx, id)
	if serr := s.st.Save(s.Local.FS(), s.Name); serr != nil && err == nil {
		err = serr
	}
	return s.rep, err
}

// SessionFolder is the workspace folder here of session id, as the last
// sync left it ("" when it has none).
func (s *Syncer) SessionFolder(id string) string {
	if s.st == nil {
		return ""
	}
	s.st.want(id)
	if ss := s.st.Sessions[id]; ss != nil {
		return ss.WS
	}
	return ""
}

// Moved records that session id now lives in workspace folder ws here,
// in the state as it is now (read again, under the lock).
func (s *Syncer) Moved(ctx context.Context, id, ws string) error {
	if err := s.hold(); err != nil {
		return err
	}
	defer s.end()
	st, err := LoadState(s.Local.FS(), s.Name, s.URL)
	if err != nil {
		return err
	}
	s.st = st
	s.st.want(id)
	if ss := s.st.Sessions[id]; ss != nil {
		ss.WS = ws
		s.st.touch(id)
	}
	return s.st.Save(s.Local.FS(), s.Name)
}

// FindCard reads the log and returns the card of the session whose id is
// id or, among the remote's sessions, the only one it begins.
func (s *Syncer) FindCard(ctx context.Context, id string) (*Card, error) {
	cards, err := s.Cards(ctx)
	if err != nil {
		return nil, err
	}
	var card *Card
	for i := range cards {
		if cards[i].ID == id {
			return &cards[i], nil
		}
		if id != "" && strings.HasPrefix(cards[i].ID, id) {
			if card != nil {
				return nil, fmt.Errorf("%q %w of remote %s", id, ErrAmbiguous, s.Name)
			}
			card = &cards[i]
		}
	}
	if card == nil {
		return nil, fmt.Errorf("%w %s on remote %s", ErrNoSession, id, s.Name)
	}
	return card, nil
}
