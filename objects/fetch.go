package objects

import (
	"context"
	"errors"
	"fmt"
)

// Fetcher brings an object the store lacks from somewhere else (a remote
// that another machine pushed it to). Fetch stores object id in s, with
// Put, so that it is verified and durable like any other, or returns an
// error wrapping ErrNotFound when it has no copy either.
type Fetcher interface {
	Fetch(ctx context.Context, s *Store, id ID) error
}

// SetFetcher makes the reads of the store (Get, ReadAll, Stat, Verify)
// ask f for an object the folder does not hold, then read it from the
// folder. Has and Walk answer for the folder alone. Nil turns it off.
func (s *Store) SetFetcher(f Fetcher) {
	s.mu.Lock()
	s.fetcher = f
	s.mu.Unlock()
}

// fetch asks the store's fetcher for id after a read found it missing. It
// reports whether the object is now in the folder; err is the fetcher's
// error other than not found, wrapped with the object's name.
func (s *Store) fetch(ctx context.Context, id ID) (bool, error) {
	s.mu.Lock()
	f := s.fetcher
	s.mu.Unlock()
	if f == nil {
		return false, nil
	}
	err := f.Fetch(ctx, s, id)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, ErrNotFound):
		return false, nil
	default:
		return false, fmt.Errorf("objects: %s is not here and could not be fetched: %w", id, err)
	}
}
