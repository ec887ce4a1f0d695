package engine

import (
	"cairn/engine/internal/convlog"
	"context"
	"errors"
	"fmt"
	"path/filepath"
)

// Loading a session (convlog.Read folds its items journal on every core).
// Opening hydrates everything, so storage.max_eager_load_mb caps it: the sum
// of the uncompressed payload sizes (inline text and objects), a proxy for
// the work of loading. A session over the cap refuses to open and names the
// ways out, which work over it (view_stream.go); WithMaxEagerLoadMB (the cairn command's CAIRN_MAX_EAGER_LOAD_MB)
// raises the cap for one store.

// LoadLimitError says a session is too big to open at the current ceiling.
type LoadLimitError struct {
	ID        string
	Bytes     int64
	CeilingMB int
}

func (e *LoadLimitError) Error() string {
	return fmt.Sprintf("session %s holds %s of payloads, over the %d MB ceiling (storage.max_eager_load_mb) it can be opened with; "+
		"it can still be read and forked: cairn transcript %s lists its items, and cairn fork %s --at ITEM carries the useful part forward; "+
		"or raise the ceiling (CAIRN_MAX_EAGER_LOAD_MB=%d for one run, or storage.max_eager_load_mb in config.json)",
		e.ID, sizeMB(e.Bytes), e.CeilingMB, e.ID, e.ID, (e.Bytes>>20)+1)
}

// sizeMB says a payload size in MB with one decimal: "0.4 MB".
func sizeMB(b int64) string { return fmt.Sprintf("%.1f MB", float64(b)/(1<<20)) }

func (e *LoadLimitError) Unwrap() error { return ErrRefused }

// Why is the refusal's text, which says no "refused".
func (e *LoadLimitError) Why() string { return e.Error() }

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

// UnreadableError says a session's items journal is no session cairn can
// read: it holds lines and not one of them can be read (something other
// than cairn wrote over it), or it has no session line (an older build
// left it empty when its creation failed). Such a session is left as it
// is, out of the list, and never appended to.
type UnreadableError struct {
	ID   string
	File string // the items journal, an absolute path
	// NoSessionLine: the journal reads, but no line of it starts a session.
	NoSessionLine bool
}

func (e *UnreadableError) Error() string {
	what := "holds no line cairn can read"
	if e.NoSessionLine {
		what = "has no session line"
	}
	return fmt.Sprintf("session %s cannot be read: %s %s; it is left as it is (cairn storage fsck names what is wrong)", e.ID, e.File, what)
}

func (e *UnreadableError) Unwrap() error { return ErrRefused }

// Why is the refusal's text, which says no "refused".
func (e *UnreadableError) Why() string { return e.Error() }

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
