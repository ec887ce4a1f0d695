package remote

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"

	"cairn/objects"
)

// Fetcher brings objects from a remote into a local store on demand
// (objects.Fetcher): a session pulled here reads its payloads and
// pre-images when it needs them, not before.
type Fetcher struct {
	Bucket Bucket
}

// Fetch downloads object id, compressed or raw, and stores it with Put,
// which hashes what it stores: a remote copy that does not hash to its
// name is refused, not kept under it.
func (f *Fetcher) Fetch(ctx context.Context, s *objects.Store, id objects.ID) error {
	return f.fetch(ctx, s.Put, id)
}

// fetch downloads object id and stores it with put (a Store's or a
// Batch's Put).
func (f *Fetcher) fetch(ctx context.Context, put func(context.Context, io.Reader) (objects.Info, error), id objects.ID) error {
	for _, z := range [2]bool{true, false} {
		rc, err := f.Bucket.Open(ctx, objectKey(id, z))
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		var r io.Reader = rc
		var dec *zstd.Decoder
		if z {
			if dec, err = zstd.NewReader(rc, zstd.WithDecoderConcurrency(1)); err != nil {
				rc.Close()
				return fmt.Errorf("remote: object %s: %w", id, err)
			}
			r = dec
		}
		info, err := put(ctx, r)
		if dec != nil {
			dec.Close()
		}
		rc.Close()
		if err != nil {
			return fmt.Errorf("remote: object %s: %w", id, err)
		}
		if info.ID != id {
			return fmt.Errorf("remote: object %s on the remote hashes to %s: %w", id, info.ID, objects.ErrMismatch)
		}
		return nil
	}
	return fmt.Errorf("remote: object %s: %w", id, objects.ErrNotFound)
}
