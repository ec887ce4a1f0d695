package engine

import (
	"context"

	"cairn/engine/internal/convlog"
)

// draftOf is the text of user prompt sel of session id, for a fork's
// composer. A fork folds without reading payloads, so a prompt stored as an
// object is read back here; one that cannot be is described instead.
func (w *Workspace) draftOf(ctx context.Context, id string, sel *Item) (string, *Unavailable, error) {
	if sel.Text != "" {
		return sel.Text, nil, nil
	}
	ls, err := convlog.PathLines(w.s.fsys, itemsName(w.dir, id), []*Item{sel})
	if err != nil || len(ls) == 0 || ls[0].Payload == nil {
		return sel.Text, nil, err
	}
	return w.readDraft(ctx, &Draft{Payload: ls[0].Payload})
}
