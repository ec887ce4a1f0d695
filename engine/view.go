package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"path"

	"cairn/engine/wskey"
	"cairn/internal/vfs"
	"cairn/journal"
)

// View is a session read without ownership: listing, showing, transcripts
// and trails never need the lock, because they read only complete journal
// lines and atomically replaced files.
type View struct {
	Record   *Record
	OwnerPID int
	st       *state
}

// Read folds session id's journal without taking ownership.
func (w *Workspace) Read(ctx context.Context, id string) (*View, error) {
	if !validSessionID(id) {
		return nil, fmt.Errorf("%w: %q is not a session id", ErrBadInput, id)
	}
	if _, err := w.s.fsys.Stat(itemsName(w.dir, id)); err != nil {
		if vfs.IsNotExist(err) {
			return nil, fmt.Errorf("%w: %s in %s", ErrNotFound, id, w.path)
		}
		return nil, err
	}
	st, err := w.fold(ctx, id, foldOptions{hydrate: true, limit: w.s.eagerLimit()})
	if err != nil {
		return nil, err
	}
	if st.unreadable() {
		return nil, w.unreadableError(id)
	}
	return &View{Record: st.record(nil), OwnerPID: w.ownerPID(id), st: st}, nil
}

// Transcript is the head path, oldest first.
func (v *View) Transcript() []Item { return copyItems(v.st.headPath()) }

// AllItems is every item of every branch in the order written.
func (v *View) AllItems() []Item { return copyItems(v.st.all()) }

// Trail calls fn with each line of session id's audit trail as it is on disk.
func (w *Workspace) Trail(ctx context.Context, id string, fn func(line []byte) error) (int64, error) {
	if !validSessionID(id) {
		return 0, fmt.Errorf("%w: %q is not a session id", ErrBadInput, id)
	}
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

// Workspaces lists every workspace folder of the store.
func (s *Store) Workspaces() ([]*Workspace, error) {
	ents, err := s.fsys.ReadDir(workspacesDir)
	if vfs.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []*Workspace
	for _, e := range ents {
		if !e.IsDir() || vfs.IsTemp(e.Name()) {
			continue
		}
		b, err := vfs.ReadFile(s.fsys, path.Join(workspacesDir, e.Name(), "workspace.json"))
		var info wskey.Info
		if err != nil || json.Unmarshal(b, &info) != nil || info.Path == "" {
			continue
		}
		out = append(out, &Workspace{s: s, path: info.Path, key: e.Name(), dir: workspaceDir(e.Name()), made: true})
	}
	return out, nil
}
