package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unsafe"

	"cairn/objects"
)

// maxPayload is the largest item text cairn reads back into memory.
const maxPayload = 1 << 30

// writePayload stores a large item text as an object (compressed by the
// store when that saves an eighth) and returns the reference the line holds.
func writePayload(ctx context.Context, objs *objects.Store, text string) (*Payload, error) {
	info, err := objs.PutBytes(ctx, []byte(text))
	if err != nil {
		return nil, fmt.Errorf("engine: store payload: %w", err)
	}
	return &Payload{OID: info.ID.String(), Size: info.Size}, nil
}

// readPayload reads a payload object back, verified against its name.
func readPayload(ctx context.Context, objs *objects.Store, p *Payload) (string, error) {
	id, err := objects.ParseID(p.OID)
	if err != nil {
		return "", err
	}
	b, err := objs.ReadAll(ctx, id, maxPayload)
	if err != nil || len(b) == 0 {
		return "", err
	}
	// b is ours alone and never written again: hand it over as the
	// string rather than copy a payload that may be megabytes.
	return unsafe.String(&b[0], len(b)), nil
}

// unavailable describes payload p, which could not be read back with err.
func unavailable(p *Payload, err error) *Unavailable {
	u := &Unavailable{OID: p.OID, Size: p.Size, Reason: PayloadUnreadable, Error: err.Error()}
	switch {
	case errors.Is(err, objects.ErrNotFound):
		u.Reason = PayloadMissing
	case errors.Is(err, objects.ErrMismatch):
		u.Reason = PayloadCorrupt
	}
	return u
}

// unavailableNotice tells the user which items of st could not be read
// back, or is "" when every item could.
func (st *state) unavailableNotice() string {
	const shown = 3
	var ids []string
	n := 0
	for _, id := range st.order {
		if u := st.items[id].Unavailable; u != nil {
			if n++; n <= shown {
				ids = append(ids, id+" "+u.String())
			}
		}
	}
	if n == 0 {
		return ""
	}
	if n > shown {
		ids = append(ids, fmt.Sprintf("and %d more", n-shown))
	}
	return fmt.Sprintf("session %s: %d item(s) unavailable, the rest works: %s; "+
		"cairn storage fsck names the journal lines, and putting an object file back restores its item",
		st.id, n, strings.Join(ids, ", "))
}

// draftOf is the text of user prompt sel of session id, for a fork's
// composer. A fork folds without reading payloads, so a prompt stored as an
// object is read back here; one that cannot be is described instead.
func (w *Workspace) draftOf(ctx context.Context, id string, sel *Item) (string, *Unavailable, error) {
	if sel.Text != "" {
		return sel.Text, nil, nil
	}
	ls, err := w.pathLines(ctx, id, []*Item{sel})
	if err != nil || len(ls) == 0 || ls[0].Payload == nil {
		return sel.Text, nil, err
	}
	txt, err := readPayload(ctx, w.objects(), ls[0].Payload)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return "", nil, cerr
		}
		return "", unavailable(ls[0].Payload, err), nil
	}
	return txt, nil, nil
}
