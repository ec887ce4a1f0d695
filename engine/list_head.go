package engine

import (
	"context"

	"cairn/engine/internal/listing"
	"cairn/index"
)

// ListHead returns the first n sessions as the picker index last saved
// them, and how many it holds, at a cost that does not grow with the
// sessions (rows may be stale); ok is false without a usable index.
func (w *Workspace) ListHead(ctx context.Context, n int) (head []Summary, total int, ok bool) {
	if ctx.Err() != nil {
		return nil, 0, false
	}
	if !w.made {
		if _, err := w.s.fsys.Stat(w.dir); err != nil {
			return nil, 0, false
		}
	}
	limit := w.s.future()
	ents, total, err := index.Open(w.s.fsys, w.dir).Head(n, func(e *index.Entry) bool { return e.UpdatedAt.After(limit) })
	if err != nil {
		return nil, 0, false
	}
	hinted := listing.Hinted(w.s.fsys, w.dir)
	head = make([]Summary, len(ents))
	for i, e := range ents {
		head[i] = Summary{Entry: e}
		if hinted[e.ID] {
			head[i].OwnerPID = listing.LiveOwner(w.s.fsys, w.dir, e.ID)
		}
	}
	return head, total, true
}
