package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"cairn/engine/internal/remote"
	"cairn/internal/vfs"
	"cairn/objects"
)

// gatedOpens holds each download of an object until want of them are in
// flight at once (or a while has passed, so that downloads made one at a
// time still end), and records the most that were.
type gatedOpens struct {
	remote.Bucket
	want     int
	mu       sync.Mutex
	inflight int
	most     int
	all      chan struct{}
	once     sync.Once
}

func (g *gatedOpens) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	if !strings.HasPrefix(key, "objects/") {
		return g.Bucket.Open(ctx, key)
	}
	g.mu.Lock()
	g.inflight++
	g.most = max(g.most, g.inflight)
	if g.inflight >= g.want {
		g.once.Do(func() { close(g.all) })
	}
	g.mu.Unlock()
	select {
	case <-g.all:
	case <-time.After(2 * time.Second):
	}
	rc, err := g.Bucket.Open(ctx, key)
	g.mu.Lock()
	g.inflight--
	g.mu.Unlock()
	return rc, err
}

// manyPayloads writes a session whose answers are n payload objects.
func manyPayloads(t *testing.T, s *Store, project string, n int) string {
	t.Helper()
	ctx := context.Background()
	w, _ := s.Workspace(project)
	sess := w.Create(SessionOptions{})
	sess.Append(ctx, Item{Type: User, Text: "go"})
	for i := range n {
		sess.Append(ctx, Item{Type: Assistant, Text: strings.Repeat(fmt.Sprintf("payload %d ", i), 4000)})
	}
	if err := sess.EndTurn(ctx, Turn{Model: "m"}); err != nil {
		t.Fatal(err)
	}
	id := sess.ID()
	sess.Close()
	return id
}

// TestFetchRemoteFetchesObjectsAtOnce: resuming a session pulled from a
// remote downloads the objects its transcript names several at a time,
// and every one of them is in place (and reads) before the open.
func TestFetchRemoteFetchesObjectsAtOnce(t *testing.T) {
	ctx := context.Background()
	const n = 6
	gate := &gatedOpens{want: 3, all: make(chan struct{})}
	a, b, project := twoMachines(t, "file://"+filepath.ToSlash(t.TempDir()),
		func(bk remote.Bucket) remote.Bucket { return bk },
		func(bk remote.Bucket) remote.Bucket { gate.Bucket = bk; return gate })
	id := manyPayloads(t, a, project, n)
	if _, err := a.Sync(ctx, "", SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	w, got, err := b.FetchRemote(ctx, "", id[:8], project)
	if err != nil || got != id {
		t.Fatalf("fetch: %s, %v", got, err)
	}
	if gate.most < gate.want {
		t.Errorf("at most %d objects were downloaded at once", gate.most)
	}
	// Every payload is here now (Has answers for the folder alone).
	store := w.objects()
	wa, _ := a.Workspace(project)
	var ids []objects.ID
	err = wa.objects().Walk(ctx, func(in objects.Info) error { ids = append(ids, in.ID); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) < n {
		t.Fatalf("A holds %d objects, want %d", len(ids), n)
	}
	for _, oid := range ids {
		if have, _ := store.Has(oid); !have {
			t.Errorf("object %s was not fetched with the session", oid)
		}
	}
}

// TestFetchRemoteRefusesABadObject: an object on the remote that does not
// hash to its name fails the fetch, and nothing is stored under its name.
func TestFetchRemoteRefusesABadObject(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a, b, project := twoMachines(t, "file://"+filepath.ToSlash(dir),
		func(bk remote.Bucket) remote.Bucket { return bk },
		func(bk remote.Bucket) remote.Bucket { return bk })
	id := manyPayloads(t, a, project, 3)
	if _, err := a.Sync(ctx, "", SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	var bad string
	filepath.Walk(filepath.Join(dir, "objects"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() && bad == "" {
			bad = p
		}
		return nil
	})
	if bad == "" {
		t.Fatal("no object on the remote")
	}
	other := []byte("not what its name says")
	if strings.HasSuffix(bad, ".zst") {
		enc, _ := zstd.NewWriter(nil)
		other = enc.EncodeAll(other, nil)
		enc.Close()
	}
	if err := os.WriteFile(bad, other, 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err := b.FetchRemote(ctx, "", id, project)
	if !errors.Is(err, objects.ErrMismatch) {
		t.Fatalf("a bad object on the remote: %v", err)
	}
	h := filepath.Base(filepath.Dir(bad)) + strings.TrimSuffix(filepath.Base(bad), ".zst")
	oid, perr := objects.ParseID(h)
	if perr != nil {
		t.Fatal(perr)
	}
	wb, _ := b.Workspace(project)
	if have, _ := wb.objects().Has(oid); have {
		t.Error("the bad object was stored under its name")
	}
}

// syncCounts counts the syncs of files under an objects folder and the
// syncs of a whole filesystem, passing the latter through.
type syncCounts struct {
	vfs.FS
	files, whole atomic.Int64
}

func (c *syncCounts) OpenFile(name string, flag int, perm fs.FileMode) (vfs.File, error) {
	f, err := c.FS.OpenFile(name, flag, perm)
	if err != nil || !strings.Contains(name, "/objects/") {
		return f, err
	}
	return &syncCounted{File: f, n: &c.files}, nil
}

// SyncFS passes the filesystem's handle through, or one that syncs
// nothing where the filesystem has none, so that the test tells the same
// on every kernel.
func (c *syncCounts) SyncFS(name string) (vfs.FSSync, error) {
	if s, ok := c.FS.(vfs.FSSyncer); ok {
		if h, err := s.SyncFS(name); err == nil {
			return &wholeCounted{FSSync: h, n: &c.whole}, nil
		}
	}
	return &wholeCounted{n: &c.whole}, nil
}

type syncCounted struct {
	vfs.File
	n *atomic.Int64
}

func (f *syncCounted) Sync() error {
	f.n.Add(1)
	return f.File.Sync()
}

type wholeCounted struct {
	vfs.FSSync
	n *atomic.Int64
}

func (h *wholeCounted) Sync() error {
	h.n.Add(1)
	if h.FSSync == nil {
		return nil
	}
	return h.FSSync.Sync()
}

func (h *wholeCounted) Close() error {
	if h.FSSync == nil {
		return nil
	}
	return h.FSSync.Close()
}

// TestFetchRemoteSyncsObjectsTogether: the objects a resume from a remote
// fetches are made durable together, not with a sync of each object's
// file; every one is in place after.
func TestFetchRemoteSyncsObjectsTogether(t *testing.T) {
	ctx := context.Background()
	const n = 16
	a, b, project := twoMachines(t, "file://"+filepath.ToSlash(t.TempDir()),
		func(bk remote.Bucket) remote.Bucket { return bk },
		func(bk remote.Bucket) remote.Bucket { return bk })
	id := manyPayloads(t, a, project, n)
	if _, err := a.Sync(ctx, "", SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	counts := &syncCounts{FS: b.fsys}
	b.fsys = counts
	w, got, err := b.FetchRemote(ctx, "", id, project)
	if err != nil || got != id {
		t.Fatalf("fetch: %s, %v", got, err)
	}
	if f := counts.files.Load(); f >= n/2 {
		t.Errorf("fetching %d objects synced %d object files one by one", n, f)
	}
	if counts.whole.Load() == 0 {
		t.Error("the fetched objects were never synced")
	}
	store := w.objects()
	wa, _ := a.Workspace(project)
	err = wa.objects().Walk(ctx, func(in objects.Info) error {
		if have, _ := store.Has(in.ID); !have {
			t.Errorf("object %s was not fetched with the session", in.ID)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestFetchRemoteKeepsTheRemotesBytes: an object fetched from a remote,
// with the session or later on demand, is stored as the file that was
// pushed, byte for byte: kept as it came, not compressed again.
func TestFetchRemoteKeepsTheRemotesBytes(t *testing.T) {
	ctx := context.Background()
	a, b, project := twoMachines(t, "file://"+filepath.ToSlash(t.TempDir()),
		func(bk remote.Bucket) remote.Bucket { return bk },
		func(bk remote.Bucket) remote.Bucket { return bk })
	wa, _ := a.Workspace(project)
	sess := wa.Create(SessionOptions{})
	sess.Append(ctx, Item{Type: User, Text: "go"})
	for i, n := range []int{3000, 1 << 20, 3 << 20} {
		sess.Append(ctx, Item{Type: Assistant, Text: strings.Repeat(fmt.Sprintf("payload %d of %d ", i, n), n/16)})
	}
	if err := sess.EndTurn(ctx, Turn{Model: "m"}); err != nil {
		t.Fatal(err)
	}
	id := sess.ID()
	sess.Close()
	if _, err := a.Sync(ctx, "", SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	wb, _, err := b.FetchRemote(ctx, "", id, project)
	if err != nil {
		t.Fatal(err)
	}
	sa, sb := wa.objects(), wb.objects()
	var ids []objects.ID
	if err := sa.Walk(ctx, func(in objects.Info) error { ids = append(ids, in.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	same := func(when string) {
		t.Helper()
		for _, oid := range ids {
			in, err := sa.Stat(oid)
			if err != nil {
				t.Fatal(err)
			}
			pushed, err := vfs.ReadFile(a.fsys, sa.Path(oid, in.Compressed))
			if err != nil {
				t.Fatal(err)
			}
			fetched, err := vfs.ReadFile(b.fsys, sb.Path(oid, in.Compressed))
			if err != nil || string(fetched) != string(pushed) {
				t.Errorf("%s: object %s (%d bytes) is not the file pushed: %d bytes, %v", when, oid, in.Size, len(fetched), err)
			}
		}
	}
	same("with the session")
	// Gone here: a read fetches each again, on demand.
	for _, oid := range ids {
		if err := sb.Remove(oid); err != nil {
			t.Fatal(err)
		}
		if err := sb.Verify(ctx, oid); err != nil {
			t.Fatal(err)
		}
	}
	same("on demand")
}
