package engine

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"cairn/engine/internal/listing"
	"cairn/engine/wskey"
	"cairn/index"
	"cairn/internal/vfs"
	"cairn/objects"
)

// Workspace is one canonical directory and its folder in the state tree.
// The folder is created lazily, when the first session is written.
type Workspace struct {
	s    *Store
	path string // canonical absolute directory

	mu   sync.Mutex
	key  string // "" until resolved against the state tree
	dir  string // fsys-relative workspace folder
	note string
	// repaired says what was rewritten to use the folder (workspace_info.go)
	repaired string
	// made says the folder is there with its workspace.json. A folder
	// without one (a crash came between the folder and its workspace.json)
	// is used by its name when it is the path's own, but is not made:
	// ensure writes its workspace.json before the first session goes in,
	// or fsck would find sessions in a folder that does not say whose.
	made bool
}

// Workspace returns the workspace of directory dir. Nothing is written
// until a session in it holds something worth keeping.
func (s *Store) Workspace(dir string) (*Workspace, error) {
	p, err := Canonical(dir)
	if err != nil {
		return nil, err
	}
	return s.workspaceAt(p)
}

// workspaceAt is the workspace of canonical path p.
func (s *Store) workspaceAt(p string) (*Workspace, error) {
	w := &Workspace{s: s, path: p}
	key, note, repaired, err := s.resolveFolder(p, false)
	switch {
	case err == nil:
		// A folder adopted by its name may have no workspace.json yet: it
		// is not made until ensure writes one, before anything goes in.
		w.key, w.note, w.repaired, w.made = key, note, repaired, s.named(workspaceDir(key))
	case errors.Is(err, wskey.ErrNoWorkspace):
		w.key = wskey.Key(p)
	default:
		return nil, err
	}
	w.dir = workspaceDir(w.key)
	return w, nil
}

// Path is the workspace's canonical directory.
func (w *Workspace) Path() string { return w.path }

// Key is the workspace key; Folder the absolute path of its state folder.
func (w *Workspace) Key() string    { return w.key }
func (w *Workspace) Folder() string { return filepath.Join(w.s.home, filepath.FromSlash(w.dir)) }

// Note says when the workspace folder had to take a suffixed key, or is used
// though its workspace.json could not be repaired.
func (w *Workspace) Note() string { return w.note }

// Repaired says, once, that the folder's workspace.json was rewritten to
// name this directory (workspace_info.go); "" when nothing was.
func (w *Workspace) Repaired() string { return w.repaired }

// Store is the state folder the workspace belongs to.
func (w *Workspace) Store() *Store { return w.s }

// madeDir is the workspace folder once it is resolved (ensure), else "".
func (w *Workspace) madeDir() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.made {
		return ""
	}
	return w.dir
}

// ensure creates the workspace folder and its sessions folder.
func (w *Workspace) ensure() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.made {
		key, note, repaired, err := w.s.resolveFolder(w.path, true)
		if err != nil {
			return fmt.Errorf("engine: workspace folder: %w", err)
		}
		w.key, w.note, w.made, w.dir = key, note, true, workspaceDir(key)
		if repaired != "" {
			w.note = repaired
		}
	}
	sess := path.Join(w.dir, "sessions")
	if _, err := w.s.fsys.Stat(sess); err == nil {
		return nil
	}
	return vfs.MkdirAllDurable(w.s.fsys, sess, vfs.DirPerm)
}

// objects is the workspace's content-addressed store: one per folder for
// the life of the Store, so what it knows of its objects' durability (an
// object whose folder sync failed is written again) holds for every Put.
func (w *Workspace) objects() *objects.Store {
	dir := path.Join(w.dir, "objects")
	if o, ok := w.s.objs.Load(dir); ok {
		return o.(*objects.Store)
	}
	store := objects.New(w.s.fsys, dir)
	store.SetFetcher(w.s.fetcher()) // objects of sessions pulled from a remote (remote.go)
	o, _ := w.s.objs.LoadOrStore(dir, store)
	return o.(*objects.Store)
}

// List returns the workspace's sessions through the picker index, newest
// updated_at first, with the records that could not be read as problems.
// It never reads the journals.
func (w *Workspace) List(ctx context.Context) ([]Summary, []index.Problem, error) {
	ents, owners, problems, err := w.listed(ctx)
	if err != nil || ents == nil {
		return nil, nil, err
	}
	out := make([]Summary, len(ents))
	for i, e := range ents {
		out[i] = Summary{Entry: e, OwnerPID: owners[e.ID]}
	}
	return out, problems, nil
}

// ListEach is List handing each session to fn in listing order instead of
// gathering them; an error from fn stops it.
func (w *Workspace) ListEach(ctx context.Context, fn func(Summary) error) ([]index.Problem, error) {
	ents, owners, problems, err := w.listed(ctx)
	if err != nil {
		return nil, err
	}
	for i := range ents {
		if err := fn(Summary{Entry: ents[i], OwnerPID: owners[ents[i].ID]}); err != nil {
			return nil, err
		}
	}
	return problems, nil
}

// listed is List's listing as the index holds it (listing.Checked), with
// the owners of the sessions open now; ents is nil when there is no
// workspace folder.
func (w *Workspace) listed(ctx context.Context) (ents []index.Entry, owners map[string]int, problems []index.Problem, err error) {
	if !w.made {
		if _, err := w.s.fsys.Stat(w.dir); err != nil {
			return nil, nil, nil, nil
		}
	}
	// Owners first: a session whose owner died is settled there, its
	// record rebuilt when its journal went on past it, before the index
	// reads the records; the temp files its file tools left go.
	owners = w.owners()
	w.sweepKilled()
	rebuild := func(ids []string, failed map[string]error) int { return w.rebuildRecordsWhy(ctx, ids, failed) }
	ents, problems, err = listing.Checked(ctx, w.s.fsys, w.dir, index.Open(w.s.fsys, w.dir), w.s.future(), rebuild)
	if err != nil {
		return nil, nil, nil, err
	}
	return ents, owners, problems, nil
}

// Summary is one session as the picker lists it.
type Summary struct {
	index.Entry
	OwnerPID int // the pid of the process that owns it, 0 when none
}

// Resolve turns a session reference (a full id, a unique id prefix, or an
// exact title) into a session id.
func (w *Workspace) Resolve(ctx context.Context, ref string) (string, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return "", fmt.Errorf("%w: empty session reference", ErrBadInput)
	}
	if validSessionID(ref) {
		if _, err := w.s.fsys.Stat(itemsName(w.dir, ref)); err == nil {
			return ref, nil
		}
	}
	// A lookup finds what a listing shows (a record rebuilt, a session
	// that cannot be opened left out). An index that cannot be saved (a
	// full disk, a read-only state folder) is still right, as for List.
	ents, _, _, err := w.listed(ctx)
	if err != nil {
		return "", err
	}
	return listing.Match(ents, ref, w.path)
}

// Latest is the id of the most recently written session, or ErrNotFound.
func (w *Workspace) Latest(ctx context.Context) (string, error) {
	l, _, err := w.List(ctx)
	if err != nil {
		return "", err
	}
	if len(l) == 0 {
		return "", fmt.Errorf("%w: no sessions in %s", ErrNotFound, w.path)
	}
	return l[0].ID, nil
}

// SortSummaries orders sessions as the picker does: newest updated_at first,
// ties by id, and those dated in the future (by the store's clock) last.
func (s *Store) SortSummaries(l []Summary) {
	listing.Sort(l, s.future(), func(x *Summary) *index.Entry { return &x.Entry })
}

// rebuildRecordsWhy writes the missing records of sessions that have a
// journal (a crash came between the journal's first line and the first
// record), so the picker lists them, and says, in failed when it is not
// nil, why each session whose journal cannot be read got no record. A
// session another process owns is left to its owner, which writes the
// record at its next commit. A record that could not be written (a full
// disk) is no failure: the session opens, and its record is rebuilt
// another time.
func (w *Workspace) rebuildRecordsWhy(ctx context.Context, ids []string, failed map[string]error) int {
	n := 0
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] || !validSessionID(id) || w.ownerPID(id) != 0 {
			continue
		}
		seen[id] = true
		err := w.rebuildRecord(ctx, id)
		var unreadable *UnreadableError
		switch {
		case err == nil:
			n++
		case failed != nil && errors.As(err, &unreadable):
			failed[id] = err
		}
	}
	return n
}
