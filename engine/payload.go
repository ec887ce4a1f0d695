package engine

import (
	"context"
	"fmt"
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
