package engine

import (
	"cairn/engine/internal/convlog"
	"context"
	"fmt"
)

// Reading a session that is too big to hydrate. The eager-load ceiling
// guards opening a session, which reads every payload back at once. A
// session over it can still be shown, read and forked: ReadLean folds its
// journal one line at a time and keeps the conversation's shape (ids,
// parents, types, the head), never its texts, and Stream then reads the
// texts back one item at a time, in the order they were written, each
// payload object read and let go before the next.

// ReadLean reads session id without ownership or texts, whatever its size
// (Stream gives the texts); Ceiling says by how much it is over the
// eager-load ceiling.
func (w *Workspace) ReadLean(ctx context.Context, id string) (*View, error) {
	if !validSessionID(id) {
		return nil, fmt.Errorf("%w: %q is not a session id", ErrBadInput, id)
	}
	st, err := convlog.ReadLean(ctx, w.s.fsys, itemsName(w.dir, id), id, w.path, w.s.future())
	if isNotExist(err) {
		return nil, fmt.Errorf("%w: %s in %s", ErrNotFound, id, w.path)
	}
	if err != nil {
		return nil, fmt.Errorf("engine: read session %s: %w", id, err)
	}
	if err := w.readable(id, st); err != nil {
		return nil, err
	}
	v := &View{Record: recordOf(st, nil), OwnerPID: w.ownerPID(id), st: st, ws: w, lean: true}
	if limit := w.s.eagerLimit(); limit > 0 && st.Bytes > limit {
		v.Ceiling = &LoadLimitError{ID: id, Bytes: st.Bytes, CeilingMB: int(limit >> 20)}
	}
	return v, nil
}

// Stream calls fn with each item of the head path (with all, of every
// branch), oldest first, its text read back; a payload that cannot be read
// makes its item Unavailable.
func (v *View) Stream(ctx context.Context, all bool, fn func(Item) error) error {
	items := v.st.HeadPath()
	if all {
		items = v.st.All()
	}
	return v.stream(ctx, items, fn)
}

// ItemText is item id as Stream gives it, its text read back alone.
func (v *View) ItemText(ctx context.Context, id string) (Item, error) {
	it := v.st.Item(id)
	if it == nil {
		return Item{}, noItem(id, v.st.ID)
	}
	var out Item
	err := v.stream(ctx, []*Item{it}, func(i Item) error {
		out = i
		return nil
	})
	return out, err
}

// stream calls fn with items, which are in the journal's order, their
// texts read back.
func (v *View) stream(ctx context.Context, items []*Item, fn func(Item) error) error {
	if !v.lean {
		for _, it := range items {
			if err := fn(*it); err != nil {
				return err
			}
		}
		return nil
	}
	return convlog.Stream(ctx, v.ws.s.fsys, itemsName(v.ws.dir, v.st.ID), v.ws.objects(), v.st, items, fn)
}
