package engine

import (
	"context"
	"fmt"
	"sync"

	"cairn/engine/internal/remote"
	"cairn/internal/timefmt"
	"cairn/internal/vfs"
)

// syncLocal is the state folder as a sync sees it (remote.Local): the
// engine's side of a sync, what it alone knows of workspaces, ownership
// and records.
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
	lk, err := w.take(id, false, false)
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
