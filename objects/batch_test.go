package objects

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"cairn/internal/vfs"
)

// batchContents are a batch's contents: small ones (raw and compressed),
// one twice, an empty one, and a large one (Put's streaming path).
func batchContents() [][]byte {
	var out [][]byte
	for i := range 6 {
		out = append(out, textish(uint64(200+i), 300+i*100), random(uint64(300+i), 200+i))
	}
	out = append(out, out[3], nil, random(400, chunk+1))
	return out
}

// noSyncFS hides the FSSyncer of the FS it wraps: a batch syncs its files
// one by one from its pool.
type noSyncFS struct{ vfs.FS }

// batchFS runs fn with the in-memory FS as a batch sees it: with SyncFS,
// and without (the pool).
func batchFS(t *testing.T, fn func(t *testing.T, m *vfs.Mem, wrap func(vfs.FS) vfs.FS)) {
	t.Run("syncfs", func(t *testing.T) { fn(t, vfs.NewMem(), func(f vfs.FS) vfs.FS { return f }) })
	t.Run("pool", func(t *testing.T) { fn(t, vfs.NewMem(), func(f vfs.FS) vfs.FS { return noSyncFS{f} }) })
}

// putBatch stores contents in one batch of s, flushing every 4 objects,
// and commits it.
func putBatch(s *Store, contents [][]byte) error {
	s.batchOpen = 4
	b := s.Batch()
	defer b.Abort()
	for _, c := range contents {
		if _, err := b.PutBytes(ctx, c); err != nil {
			return err
		}
	}
	return b.Commit()
}

// TestBatchCrashAtEverySyncPoint stops a batch at each of its sync points
// in turn and loses power (cleanly, and with a random share of the
// unsynced changes kept): every object left is whole, and once Commit has
// returned every object of the batch is there, and the sweep of temp
// files leaves none. A batch that renamed a file into place before its
// data was durable would leave an object that does not verify.
func TestBatchCrashAtEverySyncPoint(t *testing.T) {
	contents := batchContents()
	batchFS(t, func(t *testing.T, _ *vfs.Mem, wrap func(vfs.FS) vfs.FS) {
		points := 0
		for n := 0; ; n++ {
			if n > 200 {
				t.Fatal("the batch never finished")
			}
			done := false
			for seed := range 3 {
				m := vfs.NewMem()
				dir := "w/objects"
				// Some objects stored already, their shards too.
				if _, err := New(m, dir).PutBytes(ctx, contents[0]); err != nil {
					t.Fatal(err)
				}
				m.FailAfterSyncs(n)
				err := putBatch(New(wrap(m), dir), contents)
				if err != nil && !errors.Is(err, vfs.ErrCrashed) {
					t.Fatalf("stopped after %d syncs: %v", n, err)
				}
				done = err == nil
				if seed == 0 {
					m.Crash()
				} else {
					m.CrashPartial(rand.New(rand.NewPCG(uint64(n), uint64(seed))))
				}
				// Every object left verifies; none is lost once acknowledged.
				s := New(m, dir)
				if err := s.Walk(ctx, func(info Info) error { return s.Verify(ctx, info.ID) }); err != nil {
					t.Fatalf("stopped after %d syncs, seed %d: %v", n, seed, err)
				}
				for _, c := range contents {
					if ok := must(s.Has(Sum(c)))(t); done && !ok {
						t.Fatalf("Commit returned after %d syncs, object of %d bytes lost in the crash", n, len(c))
					}
				}
				// The temp files the crash cut short are swept (as opening a
				// session does): only shard folders are left.
				if _, err := vfs.SweepTemps(m, dir); err != nil {
					t.Fatal(err)
				}
				for _, e := range must(m.ReadDir(dir))(t) {
					if !e.IsDir() || len(e.Name()) != 2 {
						t.Fatalf("stopped after %d syncs, seed %d: %s left in the store folder after the sweep", n, seed, e.Name())
					}
				}
			}
			points++
			if done {
				break
			}
		}
		if points < 10 {
			t.Fatalf("only %d sync points: the batch was not flushed along the way", points)
		}
	})
}

// TestBatchSyncsOncePerFolder: a batch syncs its files' data together
// (one SyncFS, or a pool of file syncs) and each shard folder once, where
// a Put each syncs its file and its folder.
func TestBatchSyncsOncePerFolder(t *testing.T) {
	var contents [][]byte
	for i := range 100 {
		contents = append(contents, textish(uint64(500+i), 1000))
	}
	m := vfs.NewMem()
	s := New(m, "objects")
	b := s.Batch()
	for _, c := range contents {
		if _, err := b.PutBytes(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	before := m.Syncs()
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	shards := len(must(m.ReadDir("objects"))(t))
	// One SyncFS, one sync of the store folder for the new shards, one
	// per shard; the store folder's own parents were synced by the first
	// Put.
	if got, want := m.Syncs()-before, 1+1+shards; got != want {
		t.Fatalf("Commit of %d objects in %d shards made %d syncs, want %d", len(contents), shards, got, want)
	}
	for _, c := range contents {
		if got := mustGet(t, s, Sum(c)); !bytes.Equal(got, c) {
			t.Fatal("an object reads back different")
		}
	}
	// The objects are durable: a Put of one of them writes nothing.
	if info := must(s.PutBytes(ctx, contents[7]))(t); !info.Existed {
		t.Fatalf("after Commit: %+v", info)
	}
}

// TestBatchFailedSync: a batch whose data sync fails places nothing and
// leaves no temp file; Commit reports it; the store is as before.
func TestBatchFailedSync(t *testing.T) {
	for _, syncfs := range []bool{true, false} {
		t.Run(fmt.Sprintf("syncfs=%v", syncfs), func(t *testing.T) {
			m := vfs.NewMem()
			f := vfs.NewFaulty(m)
			var fsys vfs.FS = f
			fail := false
			if syncfs {
				fsys = syncFaulty{f, m, &fail}
			}
			s := New(fsys, "objects")
			if _, err := s.PutBytes(ctx, []byte("before")); err != nil {
				t.Fatal(err)
			}
			f.Inject(vfs.Rule{Op: vfs.OpSync, Path: "objects/*", Err: syscall.EIO})
			fail = true
			b := s.Batch()
			for _, c := range batchContents() {
				if _, err := b.PutBytes(ctx, c); err != nil {
					t.Fatal(err)
				}
			}
			if err := b.Commit(); !errors.Is(err, syscall.EIO) {
				t.Fatalf("Commit: %v", err)
			}
			f.Reset()
			n := 0
			if err := s.Walk(ctx, func(Info) error { n++; return nil }); err != nil || n != 1 {
				t.Fatalf("after a failed batch: %d objects, %v", n, err)
			}
			if es := must(m.ReadDir("objects"))(t); len(es) != 1 {
				t.Fatalf("left in the store folder: %v", es)
			}
		})
	}
}

// syncFaulty is a Faulty with the SyncFS of the Mem it wraps, whose Sync
// fails with EIO while fail is set.
type syncFaulty struct {
	*vfs.Faulty
	m    *vfs.Mem
	fail *bool
}

func (s syncFaulty) SyncFS(name string) (vfs.FSSync, error) {
	h, err := s.m.SyncFS(name)
	return faultySync{h, s.fail}, err
}

type faultySync struct {
	vfs.FSSync
	fail *bool
}

func (h faultySync) Sync() error {
	if *h.fail {
		return syscall.EIO
	}
	return h.FSSync.Sync()
}

// TestBatchOpensSyncFSFirst: a batch opens its SyncFS handle once, before
// it creates its first temp file, and syncs through it at every flush.
// syncfs(2) reports the write-back errors since its folder was opened: a
// handle opened at the flush, after the files were written, misses an
// error another process's syncfs reported in between, and the batch would
// name data that was lost.
func TestBatchOpensSyncFSFirst(t *testing.T) {
	m := vfs.NewMem()
	o := &orderFS{Mem: m}
	s := New(o, "objects")
	s.batchOpen = 4
	b := s.Batch()
	defer b.Abort()
	for _, c := range batchContents() {
		if _, err := b.PutBytes(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.ops[:2], []string{"syncfs", "create"}) {
		t.Fatalf("first calls %q, want the SyncFS handle before the first temp file", o.ops[:min(2, len(o.ops))])
	}
	if n := strings.Count(strings.Join(o.ops, " "), "syncfs"); n != 1 {
		t.Fatalf("%d SyncFS handles opened for one batch: %q", n, o.ops)
	}
}

// orderFS records the order of SyncFS opens and file creations.
type orderFS struct {
	*vfs.Mem
	mu  sync.Mutex
	ops []string
}

func (o *orderFS) note(op string) {
	o.mu.Lock()
	o.ops = append(o.ops, op)
	o.mu.Unlock()
}

func (o *orderFS) SyncFS(name string) (vfs.FSSync, error) {
	o.note("syncfs")
	return o.Mem.SyncFS(name)
}

func (o *orderFS) OpenFile(name string, flag int, perm fs.FileMode) (vfs.File, error) {
	if flag&os.O_CREATE != 0 {
		o.note("create")
	}
	return o.Mem.OpenFile(name, flag, perm)
}

func must[T any](v T, err error) func(t *testing.T) T {
	return func(t *testing.T) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}
