package httpapi

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"cairn/engine"
)

var _ snapshotOps = (*engine.Session)(nil)

// matchRef reports how ref names a session: exactly (its full id, any case),
// loosely (a prefix of its id, or its exact title), or not at all. It
// follows Workspace.Resolve.
func matchRef(ref, id, title string) (exact, loose bool) {
	if strings.EqualFold(id, ref) {
		return true, false
	}
	return false, strings.HasPrefix(strings.ToLower(id), strings.ToLower(ref)) || title == ref
}

// storeSource serves the sessions of every workspace of a store that no
// process owns. A restore opens the session (taking ownership) and closes it
// after; restores run one at a time, so two requests of this server never
// find each other's session busy. A listing takes no lock and writes
// nothing: it reads the journals as `cairn snapshots` does, so it works
// while another process owns the session.
//
// Only workspace folders that belong to the path their workspace.json names
// are served (engine.Store.Workspaces); a request for a session in another
// gets a clear refusal, never a restore into that path.
type storeSource struct {
	store *engine.Store
	warn  func(format string, args ...any)
	mu    sync.Mutex // held by a restore

	toldMu sync.Mutex
	told   map[string]string // workspace folder -> the problem last logged for it
}

// workspaceError: the session is in a workspace folder that is not served.
type workspaceError struct {
	id      string
	problem engine.WorkspaceProblem
}

func (e *workspaceError) Error() string {
	return fmt.Sprintf("session %s is not served: its workspace folder is damaged: %v", e.id, e.problem.Err)
}

func (e *workspaceError) Unwrap() error { return e.problem.Err }

// tell logs each workspace folder that is not served, once for each thing
// wrong with it.
func (s *storeSource) tell(problems []engine.WorkspaceProblem) {
	if s.warn == nil || len(problems) == 0 {
		return
	}
	s.toldMu.Lock()
	defer s.toldMu.Unlock()
	if s.told == nil {
		s.told = map[string]string{}
	}
	for _, p := range problems {
		msg := p.Err.Error()
		if s.told[p.Name] == msg {
			continue
		}
		s.told[p.Name] = msg
		s.warn("not serving %s (%d sessions): %s", p.Name, len(p.Sessions), msg)
	}
}

type hit struct {
	ws *engine.Workspace
	id string
}

// resolve finds the one session ref names among those allow admits, across
// every workspace.
func (s *storeSource) resolve(ctx context.Context, ref string, allow func(string) bool) (hit, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return hit{}, errNoSession
	}
	wss, skipped, err := s.store.Workspaces()
	if err != nil {
		return hit{}, err
	}
	s.tell(skipped)
	var exact, loose []hit
	for _, ws := range wss {
		l, _, err := ws.List(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return hit{}, ctx.Err()
			}
			continue // one unreadable workspace does not hide the others
		}
		for _, e := range l {
			if !allow(e.ID) {
				continue
			}
			switch ex, lo := matchRef(ref, e.ID, e.Title); {
			case ex:
				exact = append(exact, hit{ws, e.ID})
			case lo:
				loose = append(loose, hit{ws, e.ID})
			}
		}
	}
	if len(exact) == 1 {
		return exact[0], nil
	}
	if len(exact) == 0 && len(loose) == 0 {
		// A full id the index does not list yet.
		for _, ws := range wss {
			if id, err := ws.Resolve(ctx, ref); err == nil && id == ref && allow(id) {
				return hit{ws, id}, nil
			}
		}
	}
	switch n := len(exact) + len(loose); {
	case n == 0:
		for _, p := range skipped {
			for _, id := range p.Sessions {
				if strings.EqualFold(id, ref) && allow(id) {
					return hit{}, &workspaceError{id: id, problem: p}
				}
			}
		}
		return hit{}, errNoSession
	case n == 1:
		return loose[0], nil
	}
	return hit{}, errAmbiguous
}

func (s *storeSource) snapshots(ctx context.Context, ref string, allow func(string) bool) (*engine.SnapshotList, error) {
	h, err := s.resolve(ctx, ref, allow)
	if err != nil {
		return nil, err
	}
	l, err := h.ws.Snapshots(ctx, h.id)
	if errors.Is(err, engine.ErrNotFound) {
		return nil, errNoSession
	}
	if err != nil {
		return nil, &opError{err}
	}
	return l, nil
}

func (s *storeSource) run(ctx context.Context, ref string, allow func(string) bool, fn func(snapshotOps) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, err := s.resolve(ctx, ref, allow)
	if err != nil {
		return err
	}
	sess, err := h.ws.Open(ctx, h.id, engine.SessionOptions{})
	if errors.Is(err, engine.ErrNotFound) {
		return errNoSession
	}
	if err != nil {
		return err
	}
	if err = fn(sess); err != nil {
		err = &opError{err}
	}
	if cerr := sess.Close(); cerr != nil && s.warn != nil {
		// The operation's answer stands: the engine made it durable before
		// it returned; only letting go failed.
		s.warn("close session %s: %v", h.id, cerr)
	}
	return err
}

// Live is the one session a REPL owns, served by NewSessionServer. Its
// lock is the REPL's: the REPL holds it (Lock) except while it waits for a
// line, so a request never runs in the middle of a REPL command.
type Live struct {
	mu        sync.Mutex
	sess      func() *engine.Session // the REPL's current session, read under mu
	closed    bool
	onRestore func(*engine.RestoreResult)
}

// OnRestore has fn told of every restore a request made, under the lock
// (the REPL is waiting for a line): the person at the REPL sees the files
// change under them. Set it before serving.
func (l *Live) OnRestore(fn func(*engine.RestoreResult)) { l.onRestore = fn }

// restoreNotifier is a source that tells of the restores requests make.
type restoreNotifier interface{ restored(*engine.RestoreResult) }

func (l *Live) restored(r *engine.RestoreResult) {
	if l.onRestore != nil {
		l.onRestore(r)
	}
}

// NewLive serves the session sess returns (nil: none), read under the lock.
func NewLive(sess func() *engine.Session) *Live { return &Live{sess: sess} }

// Lock keeps requests out until Unlock.
func (l *Live) Lock() { l.mu.Lock() }

// Unlock lets requests in.
func (l *Live) Unlock() { l.mu.Unlock() }

// End stops serving: every later request finds no session. The caller
// holds the lock.
func (l *Live) End() { l.closed = true }

// snapshots lists the live session's snapshots from its memory; the REPL's
// lock orders it with the REPL's own commands.
func (l *Live) snapshots(ctx context.Context, ref string, allow func(string) bool) (*engine.SnapshotList, error) {
	var out *engine.SnapshotList
	err := l.run(ctx, ref, allow, func(s snapshotOps) error {
		var err error
		out, err = s.Snapshots(ctx)
		return err
	})
	return out, err
}

func (l *Live) run(ctx context.Context, ref string, allow func(string) bool, fn func(snapshotOps) error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return errNoSession
	}
	s := l.sess()
	ref = strings.TrimSpace(ref)
	if s == nil || ref == "" {
		return errNoSession
	}
	title := ""
	if rec := s.Record(); rec != nil {
		title = rec.Title
	}
	if ex, lo := matchRef(ref, s.ID(), title); !(ex || lo) || !allow(s.ID()) {
		return errNoSession
	}
	if err := fn(s); err != nil {
		return &opError{err}
	}
	return nil
}

// ResolveSessions finds the session each of refs names (a full id, a
// unique id prefix or an exact title) across every workspace of store, as
// a request's {id} is found, and returns their ids. A reference that names
// none is engine.ErrNotFound, one that names several engine.ErrAmbiguous.
func ResolveSessions(ctx context.Context, store *engine.Store, refs []string) ([]string, error) {
	src := &storeSource{store: store}
	all := func(string) bool { return true }
	var ids []string
	for _, ref := range refs {
		h, err := src.resolve(ctx, ref, all)
		switch {
		case errors.Is(err, errNoSession):
			return nil, fmt.Errorf("%w: %q", engine.ErrNotFound, ref)
		case errors.Is(err, errAmbiguous):
			return nil, fmt.Errorf("%w: %q matches more than one session", engine.ErrAmbiguous, ref)
		case err != nil:
			return nil, err
		}
		ids = append(ids, h.id)
	}
	return ids, nil
}
