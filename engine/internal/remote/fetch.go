package remote

import (
	"context"
	"errors"
	"fmt"
	"io"

	"cairn/objects"
)

// Fetcher brings objects from a remote into a local store on demand
// (objects.Fetcher): a session pulled here reads its payloads and
// pre-images when it needs them, not before.
type Fetcher struct {
	Bucket Bucket
}

// Fetch downloads object id, compressed or raw, and stores it as it came
// with PutStored, which decodes and hashes it on the way: a remote copy
// that does not hash to its name is refused, not kept under it, and one
// that is kept is not compressed again.
func (f *Fetcher) Fetch(ctx context.Context, s *objects.Store, id objects.ID) error {
	return f.fetch(ctx, s.PutStored, id)
}

// putStored is a Store's or a Batch's PutStored.
type putStored func(ctx context.Context, id objects.ID, compressed bool, r io.Reader) (objects.Info, error)

// fetch downloads object id and stores it with put.
func (f *Fetcher) fetch(ctx context.Context, put putStored, id objects.ID) error {
	for _, z := range [2]bool{true, false} {
		rc, err := f.Bucket.Open(ctx, objectKey(id, z))
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		_, err = put(ctx, id, z, rc)
		rc.Close()
		if err != nil {
			return fmt.Errorf("remote: object %s: %w", id, err)
		}
		return nil
	}
	return fmt.Errorf("remote: object %s: %w", id, objects.ErrNotFound)
}
