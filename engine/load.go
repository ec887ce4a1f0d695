package engine

import (
	"cairn/engine/internal/convlog"
	"context"
	"errors"
	"path/filepath"
)

// Loading a session (convlog.Read folds its items journal on every core).
// Opening hydrates everything, so storage.max_eager_load_mb caps it: the sum
// of the uncompressed payload sizes (inline text and objects), a proxy for
// the work of loading. A session over the cap refuses to open and names the
// ways out, which work over it (view_stream.go); WithMaxEagerLoadMB (the cairn command's CAIRN_MAX_EAGER_LOAD_MB)
// raises the cap for one store.

// eagerLimitMB is the ceiling in MB: WithMaxEagerLoadMB, else config.json, else 1024.
func (s *Store) eagerLimitMB() int {
	if s.eagerLoadMB > 0 {
		return s.eagerLoadMB
	}
	if c, err := s.Config(); err == nil {
		return c.Storage.MaxEagerLoadMB
	}
	return DefaultConfig().Storage.MaxEagerLoadMB
}

func (s *Store) eagerLimit() int64 { return int64(s.eagerLimitMB()) << 20 }

type foldOptions struct {
	hydrate bool  // read payload objects back into the items
	limit   int64 // refuse when payload bytes exceed it (0: no limit)
}

// fold reads session id's items journal into a state.
func (w *Workspace) fold(ctx context.Context, id string, opt foldOptions) (*state, error) {
	return w.foldFile(ctx, id, itemsName(w.dir, id), opt)
}

// foldFile reads the items journal name (a session's, or a task's
// transcript, task.go) into a state named id (convlog.Read).
func (w *Workspace) foldFile(ctx context.Context, id, name string, opt foldOptions) (*state, error) {
	st, err := convlog.Read(ctx, w.s.fsys, name, id, w.path, convlog.ReadOptions{Hydrate: opt.hydrate, Limit: opt.limit,
		Objects: w.objects(), NotAfter: w.s.future()})
	var big *convlog.TooBigError
	if errors.As(err, &big) {
		return nil, &LoadLimitError{ID: id, Bytes: big.Bytes, CeilingMB: int(big.Limit >> 20)}
	}
	return st, err
}

// readable says why the journal of session id folded into st is no
// session to open, list or fork (an *UnreadableError), or nil.
func (w *Workspace) readable(id string, st *state) error {
	switch {
	case st.Unreadable():
		return w.unreadableError(id)
	case st.Created.IsZero():
		return &UnreadableError{ID: id, File: filepath.Join(w.s.home, filepath.FromSlash(itemsName(w.dir, id))), NoSessionLine: true}
	}
	return nil
}

// unreadableError is the *UnreadableError of session id of w.
func (w *Workspace) unreadableError(id string) error {
	return &UnreadableError{ID: id, File: filepath.Join(w.s.home, filepath.FromSlash(itemsName(w.dir, id)))}
}
