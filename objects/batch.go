package objects

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"cairn/internal/vfs"
)

// Batch stores many objects with one point of durability, for a caller
// that names them all in one line: a record's walk stores every file it
// reads, and a first record of a tree stores thousands. A Put of a Batch
// writes its temp file but does not sync it; Commit makes the data of all
// of them durable at once, renames each into its shard, and syncs each
// shard folder once. So an object's data is durable before its name
// appears, as with Store.Put, and every object of the batch is durable
// when Commit returns nil: the line that names them is written after it.
//
// The data is synced with one vfs.SyncFS of the store folder where the FS
// offers it (syncfs(2) on Linux: the temp files are entries of the store
// folder, so on its filesystem), else by File.Sync of each file from a
// pool of syncWorkers goroutines. The batch opens its SyncFS handle at its
// first Put, before it writes a file: the handle reports the write-back
// errors since it was opened, and one opened later would miss an error
// another batch's syncfs (in this process or another) reported first. At most batchOpen temp files are held
// open: when a Put passes that, it flushes them (data synced, renamed into
// place) on its own goroutine; their shard folders wait for Commit, and
// until then the Store takes those objects as not known durable (a plain
// Put of the same content writes it again, as after a failed folder sync).
//
// A Batch is safe for concurrent use. The Info a Put returns describes an
// object that is durable only once Commit has returned nil. After Commit
// or Abort the Batch is done with (call one of them: they close the
// SyncFS handle); Abort after Commit does nothing.
type Batch struct {
	s *Store

	mu     sync.Mutex
	open   []held      // written, data not yet synced
	placed []ID        // renamed into place, shard folder not yet synced
	ids    map[ID]bool // held or placed by this batch
	err    error       // the first error of a flush: every later call fails
	done   bool
	// fsSync is the store folder's SyncFS handle, opened by the first Put
	// (started) when the FS has one; nil: each file is synced.
	fsSync  vfs.FSSync
	started bool
	wg      sync.WaitGroup // flushes in progress
}

// held is a temp file of a Batch waiting for its sync.
type held struct {
	f          vfs.File
	id         ID
	compressed bool
}

const (
	// batchOpen is the most temp files a Batch holds open before it
	// flushes them: enough for the syncs to overlap, few enough for any
	// file descriptor limit.
	batchOpen = 256
	// syncWorkers is the pool that syncs a batch's files (or folders) one
	// by one where the FS has no SyncFS: the disk merges syncs that
	// overlap into fewer journal commits.
	syncWorkers = 8
)

// errBatchDone is a Put on a Batch after its Commit or Abort.
var errBatchDone = errors.New("objects: batch already committed")

// Batch starts a batch of Puts made durable together by its Commit.
func (s *Store) Batch() *Batch { return &Batch{s: s, ids: map[ID]bool{}} }

// Put stores the content read from r, as Store.Put, durable once Commit
// returns nil.
func (b *Batch) Put(ctx context.Context, r io.Reader) (Info, error) {
	b.start()
	return b.s.put(ctx, r, b.hold)
}

// PutBytes stores content p, as Store.PutBytes, durable once Commit
// returns nil.
func (b *Batch) PutBytes(ctx context.Context, p []byte) (Info, error) {
	b.start()
	return b.s.putBytes(ctx, p, b.hold)
}

// start opens the batch's SyncFS handle, once, before its first file is
// written. Where it cannot (no SyncFS, the store folder not made: the
// Put reports that) the batch syncs each file.
func (b *Batch) start() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.started || b.done {
		return
	}
	b.started = true
	if b.s.ensureStore() != nil {
		return
	}
	if h, err := vfs.SyncFS(b.s.fsys, b.s.dir); err == nil {
		b.fsSync = h
	}
}

// closeSync closes the SyncFS handle once the flushes are over.
func (b *Batch) closeSync() {
	b.mu.Lock()
	h := b.fsSync
	b.fsSync = nil
	b.mu.Unlock()
	if h != nil {
		h.Close()
	}
}

// hold keeps temp file f of object id for the batch's sync (a committer).
func (b *Batch) hold(f vfs.File, id ID, compressed bool) error {
	b.mu.Lock()
	switch {
	case b.done:
		b.mu.Unlock()
		b.s.discard(f)
		return errBatchDone
	case b.err != nil:
		err := b.err
		b.mu.Unlock()
		b.s.discard(f)
		return err
	case b.ids[id]:
		// The same content twice in one batch: its first copy will do.
		b.mu.Unlock()
		b.s.discard(f)
		return nil
	}
	b.ids[id] = true
	b.open = append(b.open, held{f: f, id: id, compressed: compressed})
	var list []held
	if limit := cmp.Or(b.s.batchOpen, batchOpen); len(b.open) >= limit {
		list, b.open = b.open, nil
		b.wg.Add(1)
	}
	b.mu.Unlock()
	if list == nil {
		return nil
	}
	defer b.wg.Done()
	return b.flush(list)
}

// flush syncs the data of the temp files in list and renames each into
// its shard. On an error none is placed after it, and every one left is
// removed; the batch fails from then on.
func (b *Batch) flush(list []held) error {
	s := b.s
	b.mu.Lock()
	failed := b.err
	b.mu.Unlock()
	if failed != nil {
		// An earlier flush failed: these are not placed either.
		for _, h := range list {
			s.discard(h.f)
		}
		return failed
	}
	err := b.syncData(list)
	if err == nil {
		ids := make([]ID, len(list))
		for i, h := range list {
			ids[i] = h.id
		}
		err = s.ensureShards(ids)
	}
	var placed []ID
	for _, h := range list {
		tmp := h.f.Name()
		if cerr := h.f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("objects: put: %w", cerr)
		}
		if err == nil {
			err = s.place(tmp, h.id, h.compressed)
			if err == nil {
				placed = append(placed, h.id)
			}
		} else {
			s.fsys.Remove(tmp)
		}
		vfs.ReleaseTemp(tmp)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.placed = append(b.placed, placed...)
	if err != nil && b.err == nil {
		b.err = err
	}
	return b.err
}

// syncData makes the data of the temp files in list durable: one Sync of
// the batch's SyncFS handle where it has one, else each file's Sync.
func (b *Batch) syncData(list []held) error {
	b.mu.Lock()
	h := b.fsSync
	b.mu.Unlock()
	if len(list) > 1 && h != nil {
		err := h.Sync()
		if !errors.Is(err, errors.ErrUnsupported) {
			if err != nil {
				return fmt.Errorf("objects: put: %w", err)
			}
			return nil
		}
	}
	return inPool(len(list), func(i int) error {
		if err := list[i].f.Sync(); err != nil {
			return fmt.Errorf("objects: put: %w", err)
		}
		return nil
	})
}

// Commit makes every object of the batch durable: the data of the files
// still held synced and renamed into place, then each shard folder the
// batch renamed into synced once. On an error some objects may not be
// durable; the Store writes them again when they are put again.
func (b *Batch) Commit() error {
	b.mu.Lock()
	if b.done {
		b.mu.Unlock()
		return errBatchDone
	}
	b.done = true
	list := b.open
	b.open = nil
	b.mu.Unlock()
	if len(list) > 0 {
		b.flush(list)
	}
	b.wg.Wait()
	b.closeSync()
	b.mu.Lock()
	err, placed := b.err, b.placed
	b.placed = nil
	b.mu.Unlock()
	if err != nil {
		return err
	}
	byShard := map[string][]ID{}
	for _, id := range placed {
		d := b.s.shardDir(id)
		byShard[d] = append(byShard[d], id)
	}
	shards := slices.Sorted(func(yield func(string) bool) {
		for d := range byShard {
			if !yield(d) {
				return
			}
		}
	})
	errs := make([]error, len(shards))
	inPool(len(shards), func(i int) error {
		errs[i] = b.s.fsys.SyncDir(shards[i])
		return nil
	})
	for i, d := range shards {
		if errs[i] != nil {
			// Its objects stay marked unsynced (Store.commit).
			continue
		}
		for _, id := range byShard[d] {
			b.s.synced(id)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("objects: put: %w", err)
	}
	return nil
}

// Abort gives up the batch: the temp files still held are removed. The
// objects already renamed into place stay, not known durable (a Put of
// the same content writes them again). After Commit it does nothing.
func (b *Batch) Abort() {
	b.mu.Lock()
	if b.done {
		b.mu.Unlock()
		return
	}
	b.done = true
	list := b.open
	b.open = nil
	b.mu.Unlock()
	for _, h := range list {
		b.s.discard(h.f)
	}
	b.wg.Wait()
	b.closeSync()
}

// inPool runs fn(0) … fn(n-1) on up to syncWorkers goroutines and
// returns the first error.
func inPool(n int, fn func(i int) error) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		next  int
	)
	for range min(n, syncWorkers) {
		wg.Go(func() {
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= n {
					return
				}
				if err := fn(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return first
}
