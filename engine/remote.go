package engine

import (
	"context"
	"errors"
	"fmt"
	"os"

	"cairn/engine/internal/remote"
	"cairn/engine/retention"
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

// openBucket opens the bucket of a remote URL. A URL this build cannot
// use (a gs:// remote without -tags gcs) is bad input, as it is when added.
func (s *Store) openBucket(ctx context.Context, url string) (remote.Bucket, error) {
	b, err := s.remote.Open(ctx, url)
	if errors.Is(err, remote.ErrBadURL) {
		return nil, fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	return b, err
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
	card, err := sy.FindCard(ctx, id)
	if errors.Is(err, remote.ErrAmbiguous) {
		return nil, "", fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	if errors.Is(err, remote.ErrNoSession) {
		return nil, "", fmt.Errorf("%w: session %s on remote %s", ErrNotFound, id, sy.Name)
	}
	if err != nil {
		return nil, "", err
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
