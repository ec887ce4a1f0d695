package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"cairn/engine/internal/trash"
	"cairn/engine/retention"
)

// StoredSession is a session as `cairn storage sessions` lists it.
type StoredSession = trash.Stored

// StoredSessions lists every session of the store, by directory, then
// newest activity first.
func (s *Store) StoredSessions(ctx context.Context) ([]StoredSession, error) {
	cands, err := s.retentionCandidates(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]StoredSession, 0, len(cands))
	for _, c := range cands {
		var conv int64
		for _, name := range []string{itemsName(c.w.dir, c.ID), auditName(c.w.dir, c.ID), recordName(c.w.dir, c.ID)} {
			if fi, err := s.fsys.Stat(name); err == nil {
				conv += fi.Size()
			}
		}
		out = append(out, StoredSession{Session: c.ID, Directory: c.Directory, Title: c.Title, Tier: c.tier,
			Pinned: c.Flags&retention.Pinned != 0, Open: c.Flags&retention.Open != 0, Activity: c.Activity,
			Bytes: conv, Artifacts: c.w.artifactBytes(c.ID)})
	}
	slices.SortStableFunc(out, func(a, b StoredSession) int {
		if c := strings.Compare(a.Directory, b.Directory); c != 0 {
			return c
		}
		return b.Activity.Compare(a.Activity)
	})
	return out, nil
}

// FindSession is the workspace that holds session id, or ErrNotFound.
func (s *Store) FindSession(ctx context.Context, id string) (*Workspace, error) {
	if validSessionID(id) {
		wss, _, err := s.Workspaces()
		if err != nil {
			return nil, err
		}
		for _, w := range wss {
			if _, err := s.fsys.Stat(itemsName(w.dir, id)); err == nil {
				return w, nil
			}
		}
	}
	return nil, fmt.Errorf("%w: %q", ErrNotFound, id)
}
