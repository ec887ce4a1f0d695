package engine

import (
	"context"
	"fmt"

	"cairn/engine/internal/listing"
	"cairn/internal/vfs"
	"cairn/journal"
)

// View is a session read without ownership: listing, showing, transcripts
// and trails never need the lock, because they read only complete journal
// lines and atomically replaced files.
type View struct {
	Record   *Record
	OwnerPID int
	// Ceiling, on a view from ReadLean, is the refusal an open of the
	// session meets: nil when it is under the eager-load ceiling.
	Ceiling *LoadLimitError
	st      *state
	ws      *Workspace
	lean    bool // texts are read back by Stream (view_stream.go)
}

// Read folds session id's journal without taking ownership.
func (w *Workspace) Read(ctx context.Context, id string) (*View, error) {
	if err := w.checkSession(id); err != nil {
		return nil, err
	}
	w.sweepKilled()
	st, err := w.fold(ctx, id, foldOptions{hydrate: true, limit: w.s.eagerLimit()})
	if err != nil {
		return nil, err
	}
	if err := w.readable(id, st); err != nil {
		return nil, err
	}
	return &View{Record: recordOf(st, nil), OwnerPID: w.ownerPID(id), st: st, ws: w}, nil
}

// Transcript is the head path, oldest first.
func (v *View) Transcript() []Item { return copyItems(v.st.HeadPath()) }

// AllItems is every item of every branch in the order written.
func (v *View) AllItems() []Item { return copyItems(v.st.All()) }

// Unavailable is every item, of every branch, whose text could not be read
// back (Item.Unavailable), in the order written.
func (v *View) Unavailable() []Item {
	var out []Item
	for _, it := range v.st.All() {
		if it.Unavailable != nil {
			out = append(out, *it)
		}
	}
	return out
}

// Trail calls fn with each line of session id's audit trail as it is on disk.
func (w *Workspace) Trail(ctx context.Context, id string, fn func(line []byte) error) (int64, error) {
	if !validSessionID(id) {
		return 0, fmt.Errorf("%w: %q is not a session id", ErrBadInput, id)
	}
	w.sweepKilled()
	st, err := journal.Read(w.s.fsys, auditName(w.dir, id), fn)
	if vfs.IsNotExist(err) {
		return 0, nil
	}
	return st.End, err
}

// FollowTrail calls fn with each trail line from offset on, waiting for new
// lines until ctx is done.
func (w *Workspace) FollowTrail(ctx context.Context, id string, from int64, fn func(line []byte) error) error {
	return journal.Follow(ctx, w.s.fsys, auditName(w.dir, id), from, fn)
}

// WorkspaceProblem is a workspace folder Workspaces could not use.
type WorkspaceProblem = listing.Problem

// Workspaces lists the store's workspace folders that belong to the paths
// they name; a folder that fails comes back as a problem, untouched.
func (s *Store) Workspaces() ([]*Workspace, []WorkspaceProblem, error) {
	folders, problems, err := listing.Folders(s.fsys)
	if err != nil {
		return nil, nil, err
	}
	var out []*Workspace
	for _, f := range folders {
		out = append(out, &Workspace{s: s, path: f.Path, key: f.Key, dir: f.Dir, made: s.named(f.Dir)})
	}
	return out, problems, nil
}

// sessionsIn names the sessions of workspace folder dir by their items
// journals, reading nothing else.
func (s *Store) sessionsIn(dir string) []string { return listing.SessionsIn(s.fsys, dir) }
