package remote

import (
	"context"
	"fmt"

	"golang.org/x/sync/errgroup"

	"cairn/internal/vfs"
	"cairn/objects"
)

// fetchWorkers is how many objects FetchObjects downloads at once when
// the syncer sets no number of its own: enough to keep a link to an
// object store busy while each download is hashed and made durable.
const fetchWorkers = 12

// FetchObjects downloads, into store, the objects that session id's items
// journal in workspace folder ws names and store lacks: what a session
// pulled here reads when it opens (its transcript's payloads), fetched
// several at once rather than one by one as the open asks. Each goes
// through Fetcher, so it is hashed before it is renamed into place under
// its name, and one that does not hash to its name is refused. The
// objects of its changes (pre-images) still come when a read needs them.
// They are stored as one batch (objects.Batch): their data is made
// durable at once and each shard folder synced once, instead of a file
// and a folder sync for each object, which on a busy disk cost more than
// the download.
func (s *Syncer) FetchObjects(ctx context.Context, store *objects.Store, ws, id string) error {
	b, err := vfs.ReadFile(s.Local.FS(), LocalName(ws, id, FileItems))
	if err != nil {
		return fmt.Errorf("remote: fetch the objects of %s: %w", id, err)
	}
	named := map[objects.ID]bool{}
	namedObjects(b, named)
	var want []objects.ID
	for oid := range named {
		if have, err := store.Has(oid); err != nil {
			return err
		} else if !have {
			want = append(want, oid)
		}
	}
	workers := s.Workers
	if workers <= 0 {
		workers = fetchWorkers
	}
	if len(want) == 0 {
		return nil
	}
	f := &Fetcher{Bucket: s.Bucket}
	batch := store.Batch()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for _, oid := range want {
		g.Go(func() error {
			if err := f.fetch(gctx, batch.PutStored, oid); err != nil {
				return err
			}
			s.mu.Lock()
			s.rep.Pulled.Objects++
			s.mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		batch.Abort()
		return err
	}
	return batch.Commit()
}
