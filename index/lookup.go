package index

import (
	"fmt"
	"strings"
)

// Lookup finds the sessions a reference names, as of the last Refresh: a full
// id (that one session), else every session whose id starts with ref
// (case-insensitive) or whose title is exactly ref. It returns the matches in
// listing order, with ErrNotFound when there is none and ErrAmbiguous when
// there is more than one.
func (x *Index) Lookup(ref string) ([]Entry, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if ref == "" {
		return nil, fmt.Errorf("%w: empty reference", ErrNotFound)
	}
	lower := strings.ToLower(ref)
	var out []Entry
	for i := range x.c.entries {
		e := &x.c.entries[i]
		if strings.EqualFold(e.ID, ref) {
			return []Entry{*e}, nil
		}
		if strings.HasPrefix(strings.ToLower(e.ID), lower) || e.Title == ref {
			out = append(out, *e)
		}
	}
	switch len(out) {
	case 0:
		return nil, fmt.Errorf("%w: %q", ErrNotFound, ref)
	case 1:
		return out, nil
	}
	return out, fmt.Errorf("%w: %q matches %d sessions", ErrAmbiguous, ref, len(out))
}
