package objects

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"cairn/internal/vfs"
)

// mapFetcher serves objects from another store, as a remote would.
type mapFetcher struct {
	from  *Store
	calls int
	err   error
}

func (f *mapFetcher) Fetch(ctx context.Context, s *Store, id ID) error {
	f.calls++
	if f.err != nil {
		return f.err
	}
	rc, err := f.from.Get(ctx, id)
	if err != nil {
		return err
	}
	defer rc.Close()
	_, err = s.Put(ctx, rc)
	return err
}

func TestFetcherBringsMissingObjects(t *testing.T) {
	fsKinds(t, func(t *testing.T, fsys vfs.FS) {
		far := New(vfs.NewMem(), "objects")
		big := textish(7, 3<<20)
		small := []byte("a small object")
		bigInfo, err := far.PutBytes(ctx, big)
		if err != nil {
			t.Fatal(err)
		}
		smallInfo, err := far.PutBytes(ctx, small)
		if err != nil {
			t.Fatal(err)
		}
		s := New(fsys, "objects")
		if _, err := s.ReadAll(ctx, smallInfo.ID, 1<<30); !errors.Is(err, ErrNotFound) {
			t.Fatalf("without a fetcher: %v, want not found", err)
		}
		f := &mapFetcher{from: far}
		s.SetFetcher(f)
		if ok, _ := s.Has(bigInfo.ID); ok {
			t.Fatal("Has fetched: it answers for the folder alone")
		}
		if got := mustGet(t, s, bigInfo.ID); !bytes.Equal(got, big) {
			t.Fatal("Get of a fetched object returned other bytes")
		}
		b, err := s.ReadAll(ctx, smallInfo.ID, 1<<30)
		if err != nil || !bytes.Equal(b, small) {
			t.Fatalf("ReadAll of a fetched object: %q, %v", b, err)
		}
		if info, err := s.Stat(bigInfo.ID); err != nil || info.Size != int64(len(big)) {
			t.Fatalf("Stat: %+v, %v", info, err)
		}
		calls := f.calls
		if ok, _ := s.Has(bigInfo.ID); !ok {
			t.Fatal("a fetched object is not kept in the folder")
		}
		mustGet(t, s, bigInfo.ID)
		if f.calls != calls {
			t.Fatal("an object already fetched was fetched again")
		}
	})
}

func TestFetcherFailures(t *testing.T) {
	s := New(vfs.NewMem(), "objects")
	id := Sum([]byte("nowhere"))
	s.SetFetcher(&mapFetcher{from: New(vfs.NewMem(), "objects")})
	if _, err := s.Get(ctx, id); !errors.Is(err, ErrNotFound) {
		t.Fatalf("an object the fetcher lacks too: %v, want not found", err)
	}
	boom := errors.New("server gone")
	s.SetFetcher(&mapFetcher{err: boom})
	_, err := s.Get(ctx, id)
	if !errors.Is(err, boom) || errors.Is(err, ErrNotFound) {
		t.Fatalf("a failing fetcher: %v, want its error, not a plain not found", err)
	}
}
