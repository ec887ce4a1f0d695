package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"cairn/engine/internal/remote"
	"cairn/engine/retention"
	"cairn/internal/timefmt"
	"cairn/internal/vfs"
	"cairn/objects"
)

// Past one machine: a state folder's sessions pushed to and pulled from
// object storage (remotes.json names the remotes; engine/internal/remote
// draws the layout, segments, the log and the leases). The methods here
// are the entry points; the mechanism is below.

// Remote is a configured remote: a name and a URL (s3://, gs://,
// azblob://, file://) that carries no credential.
type Remote = remote.Remote

// SyncReport says what a sync pushed, pulled and left, and why.
type SyncReport = remote.Report

// RemoteCard describes a session on a remote without its payloads.
type RemoteCard = remote.Card

// SyncOptions choose what a sync does.
type SyncOptions struct {
	PushOnly bool // sync --watch at a turn's end
	// Progress hears of bytes moved (phase "push" or "pull").
	Progress func(phase string, done, total int64)
}

// remoteTimeout bounds each exchange with a remote made on the way of a
// session's open or close (its lease).
const remoteTimeout = 20 * time.Second

// remoteLink is the store's default remote, opened once when first
// needed: the leases every open checks, the fetcher of objects.
type remoteLink struct {
	once    sync.Once
	err     error
	r       remote.Remote
	bucket  remote.Bucket
	machine string
	// open opens a remote's bucket: remote.Open, or a test's.
	open func(ctx context.Context, url string) (remote.Bucket, error)
}

// openBucket opens the bucket of a remote URL.
func (s *Store) openBucket(ctx context.Context, url string) (remote.Bucket, error) {
	if s.remote.open != nil {
		return s.remote.open(ctx, url)
	}
	return remote.Open(ctx, url)
}

// Remotes lists the configured remotes, the default first.
func (s *Store) Remotes() ([]Remote, error) { return remote.Remotes(s.fsys) }

// AddRemote records a remote after opening it: its format marker is read
// (written on a new remote), and its conditional writes are tried, since
// leases rely on them; a server that ignores them is refused.
func (s *Store) AddRemote(ctx context.Context, name, url string) error {
	if _, err := remote.CheckURL(url); err != nil {
		return fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	b, err := s.openBucket(ctx, url)
	if err != nil {
		return err
	}
	defer b.Close()
	if err := remote.CheckFormat(ctx, b); err != nil {
		return err
	}
	m, err := remote.Machine(s.fsys)
	if err != nil {
		return err
	}
	if err := remote.ProbeConditions(ctx, b, m); err != nil {
		return err
	}
	if err := remote.Add(s.fsys, name, url); err != nil {
		if errors.Is(err, remote.ErrNameTaken) || errors.Is(err, remote.ErrBadName) {
			return fmt.Errorf("%w: %v", ErrBadInput, err)
		}
		return err
	}
	return nil
}

// RemoveRemote forgets a remote here; nothing on it changes.
func (s *Store) RemoveRemote(name string) error {
	err := remote.RemoveRemote(s.fsys, name)
	if errors.Is(err, remote.ErrNoRemote) {
		return fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	return err
}

// syncer opens remote name ("" the default) for one sync.
func (s *Store) syncer(ctx context.Context, name string) (*remote.Syncer, error) {
	if s.ephemeral {
		return nil, refusedf("an ephemeral store has no saved sessions to sync")
	}
	r, err := remote.Find(s.fsys, name)
	if errors.Is(err, remote.ErrNoRemote) || errors.Is(err, remote.ErrNoneSet) {
		return nil, fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	if err != nil {
		return nil, err
	}
	m, err := remote.Machine(s.fsys)
	if err != nil {
		return nil, err
	}
	b, err := s.openBucket(ctx, r.URL)
	if err != nil {
		return nil, err
	}
	return &remote.Syncer{Name: r.Name, URL: r.URL, Machine: m, Bucket: b, Local: &syncLocal{s: s}, Now: s.now}, nil
}

// Sync pushes this state folder's new journal bytes, the objects they
// name, tool outputs and the usage ledger to remote name ("" the
// default), then pulls what other machines pushed.
func (s *Store) Sync(ctx context.Context, name string, opt SyncOptions) (*SyncReport, error) {
	sy, err := s.syncer(ctx, name)
	if err != nil {
		return nil, err
	}
	defer sy.Bucket.Close()
	sy.Progress = opt.Progress
	if opt.PushOnly {
		return sy.Push(ctx)
	}
	return sy.Sync(ctx)
}

// RemoteSessions lists the sessions of remote name as its log describes
// them, newest first, downloading no journal and no object.
func (s *Store) RemoteSessions(ctx context.Context, name string) ([]RemoteCard, error) {
	sy, err := s.syncer(ctx, name)
	if err != nil {
		return nil, err
	}
	defer sy.Bucket.Close()
	return sy.Cards(ctx)
}

// FetchRemote pulls session id (a full id or a unique prefix among the
// remote's) from remote name, and returns it with its workspace here:
// the directory it ran in when that exists here, else dir (the user's
// choice, or where they are), to which it is moved. Its objects come on
// demand when it is read.
func (s *Store) FetchRemote(ctx context.Context, name, id, dir string) (*Workspace, string, error) {
	sy, err := s.syncer(ctx, name)
	if err != nil {
		return nil, "", err
	}
	defer sy.Bucket.Close()
	cards, err := sy.Cards(ctx)
	if err != nil {
		return nil, "", err
	}
	var card *RemoteCard
	for i := range cards {
		if cards[i].ID == id || strings.HasPrefix(cards[i].ID, id) && id != "" {
			if card != nil {
				return nil, "", fmt.Errorf("%w: %q names more than one session of remote %s", ErrBadInput, id, sy.Name)
			}
			card = &cards[i]
		}
	}
	if card == nil {
		return nil, "", fmt.Errorf("%w: session %s on remote %s", ErrNotFound, id, sy.Name)
	}
	rep, err := sy.PullSession(ctx, card.ID)
	if err != nil {
		return nil, "", err
	}
	for _, sk := range rep.Skipped {
		return nil, "", fmt.Errorf("engine: session %s was not pulled: %s", sk.Session, sk.Why)
	}
	ws := sy.SessionFolder(card.ID)
	w := s.workspaceByFolder(ws)
	if w == nil {
		return nil, "", fmt.Errorf("engine: session %s was pulled into %s, which is not a workspace folder", card.ID, ws)
	}
	if _, err := os.Stat(w.path); err != nil && dir != "" {
		to, err := Canonical(dir)
		if err != nil {
			return nil, "", err
		}
		if to != w.path {
			if _, err := s.MigrateSessions(ctx, w.path, to, MigrateOptions{Session: card.ID, NoUsage: true}); err != nil {
				return nil, "", err
			}
			if w, err = s.workspaceAt(to); err != nil {
				return nil, "", err
			}
			if err := sy.Moved(ctx, card.ID, w.dir); err != nil {
				return nil, "", err
			}
		}
	}
	// What the open reads comes down now, several objects at once.
	if err := sy.FetchObjects(ctx, w.objects(), w.dir, card.ID); err != nil {
		return nil, "", err
	}
	return w, card.ID, nil
}

// workspaceByFolder is the workspace whose folder is ws, or nil.
func (s *Store) workspaceByFolder(ws string) *Workspace {
	wss, _, err := s.Workspaces()
	if err != nil {
		return nil
	}
	for _, w := range wss {
		if w.dir == ws {
			return w
		}
	}
	return nil
}

// link opens the default remote once, for leases and fetching; nil when
// none is set (or the store is ephemeral).
func (s *Store) link() *remoteLink {
	if s.ephemeral {
		return nil
	}
	s.remote.once.Do(func() {
		rs, err := remote.Remotes(s.fsys)
		if err != nil || len(rs) == 0 {
			s.remote.err = remote.ErrNoneSet
			return
		}
		s.remote.r = rs[0]
		if s.remote.machine, err = remote.Machine(s.fsys); err != nil {
			s.remote.err = err
			return
		}
		s.remote.bucket, s.remote.err = s.openBucket(context.Background(), rs[0].URL)
	})
	if errors.Is(s.remote.err, remote.ErrNoneSet) {
		return nil
	}
	return &s.remote
}

// fetcher is what a workspace's object store asks for an object it lacks:
// the default remote, when one is set.
func (s *Store) fetcher() objects.Fetcher {
	l := s.link()
	if l == nil || l.err != nil {
		return nil
	}
	return &remote.Fetcher{Bucket: l.bucket}
}

// leasedLock is a session's lock here and its lease on the remote: its
// Release lets the lease go first.
type leasedLock struct {
	vfs.Lock
	held *remote.Held
}

func (l *leasedLock) Release() error {
	ctx, cancel := context.WithTimeout(context.Background(), remoteTimeout)
	defer cancel()
	l.held.Release(ctx)
	return l.Lock.Release()
}

// lease checks session id's lease on the default remote once its lock
// here is held, and wraps the lock so that its release lets the lease
// go. Another machine's live lease is a *BusyError naming the machine and
// the lease's age; a remote that cannot be reached leaves the session
// open here, and notice says so (a later push finds out if another
// machine wrote it meanwhile, and changes neither copy).
func (w *Workspace) lease(ctx context.Context, id string, l vfs.Lock, notice func(string)) (vfs.Lock, error) {
	link := w.s.link()
	if link == nil {
		return l, nil
	}
	say := func(msg string) {
		if notice != nil {
			notice(msg)
		}
	}
	if link.err != nil {
		say(fmt.Sprintf("remote %s cannot be opened (%v): the session's lease there is not checked", link.r.Name, link.err))
		return l, nil
	}
	ctx, cancel := context.WithTimeout(ctx, remoteTimeout)
	defer cancel()
	host, _ := os.Hostname()
	lr := &remote.Leaser{Bucket: link.bucket, Machine: link.machine, Host: host, PID: os.Getpid(), Now: w.s.now,
		Lost: func(_ string, err error) { say(err.Error()) }}
	h, err := lr.Acquire(ctx, id)
	var busy *remote.BusyError
	if errors.As(err, &busy) {
		return nil, &BusyError{ID: id, Machine: busy.Machine, Host: busy.Host, Age: busy.Age}
	}
	if err != nil {
		say(fmt.Sprintf("the lease of session %s on remote %s could not be checked (%v): it is open here without one", id, link.r.Name, err))
		return l, nil
	}
	if h.TookOver != "" {
		say(fmt.Sprintf("session %s was last open on machine %s, whose lease lapsed: this machine holds it now", id, h.TookOver))
	}
	return &leasedLock{Lock: l, held: h}, nil
}

// syncLocal is the state folder as a sync sees it.
type syncLocal struct {
	s  *Store
	mu sync.Mutex
	ws map[string]*Workspace // folder -> workspace
}

func (l *syncLocal) FS() vfs.FS { return l.s.fsys }

func (l *syncLocal) Sessions(ctx context.Context) ([]remote.SessionRef, error) {
	wss, _, err := l.s.Workspaces()
	if err != nil {
		return nil, err
	}
	var out []remote.SessionRef
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ws = map[string]*Workspace{}
	for _, w := range wss {
		l.ws[w.dir] = w
		refs, err := remote.ListSessions(l.s.fsys, w.dir, w.path)
		if err != nil {
			continue
		}
		out = append(out, refs...)
	}
	return out, nil
}

func (l *syncLocal) workspace(ws string) *Workspace {
	l.mu.Lock()
	w := l.ws[ws]
	l.mu.Unlock()
	if w != nil {
		return w
	}
	w = l.s.workspaceByFolder(ws)
	if w != nil {
		l.mu.Lock()
		if l.ws == nil {
			l.ws = map[string]*Workspace{}
		}
		l.ws[ws] = w
		l.mu.Unlock()
	}
	return w
}

func (l *syncLocal) Hold(ctx context.Context, ws, id string) (func(), error) {
	w := l.workspace(ws)
	if w == nil {
		return nil, fmt.Errorf("%s is not a workspace folder here", ws)
	}
	lk, err := w.acquire(id)
	if err != nil {
		return nil, err
	}
	return func() { w.release(id, lk) }, nil
}

func (l *syncLocal) Place(ctx context.Context, p string) (string, error) {
	w, err := l.s.workspaceAt(p)
	if err != nil {
		return "", err
	}
	if err := w.ensure(); err != nil {
		return "", err
	}
	l.mu.Lock()
	if l.ws == nil {
		l.ws = map[string]*Workspace{}
	}
	l.ws[w.dir] = w
	l.mu.Unlock()
	return w.dir, nil
}

func (l *syncLocal) Settle(ctx context.Context, ws, id string) {
	if w := l.workspace(ws); w != nil {
		w.rebuildRecord(ctx, id)
	}
}

func (l *syncLocal) Card(ctx context.Context, ws, id string) remote.Card {
	c := remote.Card{ID: id}
	rec, err := readRecord(l.s.fsys, ws, id)
	if err != nil {
		if w := l.workspace(ws); w != nil {
			c.Path = w.path
		}
		return c
	}
	c.Path, c.Title = rec.Path, rec.Title
	if !rec.CreatedAt.IsZero() {
		c.CreatedAt = timefmt.Format(rec.CreatedAt.Time)
	}
	if !rec.UpdatedAt.IsZero() {
		c.UpdatedAt = timefmt.Format(rec.UpdatedAt.Time)
	}
	c.Items, c.Bytes = rec.Counts.Items, rec.Counts.Bytes
	return c
}

// Reports of retention and checks on a remote.
type (
	RemoteForgetReport = remote.ForgetReport
	RemotePruneReport  = remote.PruneReport
	RemoteFsckReport   = remote.FsckReport
)

// RemoteForget forgets, on remote name, the sessions policy p does not
// keep, or sessions ids whatever the policy: tombstones first, then their
// journals and tool outputs. A session open on any machine is kept.
func (s *Store) RemoteForget(ctx context.Context, name string, p retention.Policy, ids []string, dryRun bool) (*RemoteForgetReport, error) {
	sy, err := s.syncer(ctx, name)
	if err != nil {
		return nil, err
	}
	defer sy.Bucket.Close()
	rep, err := sy.Forget(ctx, p, ids, dryRun)
	if errors.Is(err, remote.ErrNotFound) {
		return nil, fmt.Errorf("%w: %v", ErrNotFound, err)
	}
	return rep, err
}

// RemotePrune removes, on remote name, what forgotten sessions left and
// the objects no live session names, once a week old.
func (s *Store) RemotePrune(ctx context.Context, name string) (*RemotePruneReport, error) {
	sy, err := s.syncer(ctx, name)
	if err != nil {
		return nil, err
	}
	defer sy.Bucket.Close()
	return sy.Prune(ctx, remote.DefaultGrace)
}

// RemoteFsck verifies remote name's objects, segments and leases.
func (s *Store) RemoteFsck(ctx context.Context, name string, progress func(done, total int)) (*RemoteFsckReport, error) {
	sy, err := s.syncer(ctx, name)
	if err != nil {
		return nil, err
	}
	defer sy.Bucket.Close()
	rep, err := remote.Fsck(ctx, sy.Bucket, progress)
	if rep != nil {
		rep.Remote = sy.Name
	}
	return rep, err
}
