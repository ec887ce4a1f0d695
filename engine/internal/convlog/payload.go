package convlog

import (
	"context"
	"errors"
	"fmt"
	"unsafe"

	"cairn/objects"
)

// MaxPayload is the largest item text cairn reads back into memory.
const MaxPayload = 1 << 30

// WritePayload stores a large item text as an object (compressed by the
// store when that saves an eighth) and returns the reference the line holds.
func WritePayload(ctx context.Context, objs *objects.Store, text string) (*Payload, error) {
	info, err := objs.PutBytes(ctx, []byte(text))
	if err != nil {
		return nil, fmt.Errorf("engine: store payload: %w", err)
	}
	return &Payload{OID: info.ID.String(), Size: info.Size}, nil
}

// ReadPayload reads a payload object back, verified against its name.
func ReadPayload(ctx context.Context, objs *objects.Store, p *Payload) (string, error) {
	id, err := objects.ParseID(p.OID)
	if err != nil {
		return "", err
	}
	b, err := objs.ReadAll(ctx, id, MaxPayload)
	if err != nil || len(b) == 0 {
		return "", err
	}
	// b is ours alone and never written again: hand it over as the
	// string rather than copy a payload that may be megabytes.
	return unsafe.String(&b[0], len(b)), nil
}

// UnavailableOf describes payload p, which could not be read back with err.
func UnavailableOf(p *Payload, err error) *Unavailable {
	u := &Unavailable{OID: p.OID, Size: p.Size, Reason: PayloadUnreadable, Error: err.Error()}
	switch {
	case errors.Is(err, objects.ErrNotFound):
		u.Reason = PayloadMissing
	case errors.Is(err, objects.ErrMismatch):
		u.Reason = PayloadCorrupt
	}
	return u
}

// ReadDraft gives the text of draft d, reading its payload object when it
// has one; a payload that cannot be read back gives its Unavailable.
func ReadDraft(ctx context.Context, objs *objects.Store, d *Draft) (string, *Unavailable, error) {
	if d == nil {
		return "", nil, nil
	}
	if d.Payload == nil {
		return d.Text, nil, nil
	}
	txt, err := ReadPayload(ctx, objs, d.Payload)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return "", nil, cerr
		}
		return "", UnavailableOf(d.Payload, err), nil
	}
	return txt, nil, nil
}
