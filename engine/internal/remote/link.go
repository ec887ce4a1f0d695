package remote

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"cairn/internal/vfs"
	"cairn/objects"
)

// LinkTimeout bounds each exchange with a remote made on the way of a
// session's open or close (its lease).
const LinkTimeout = 20 * time.Second

// Link is a state folder's default remote, opened once when first needed:
// the leases every open checks and the fetcher of objects. Its zero value
// is ready to use.
type Link struct {
	once sync.Once
	// Err says why the remote could not be opened (ErrNoneSet: none is
	// configured).
	Err     error
	Remote  Remote
	Bucket  Bucket
	Machine string
	// OpenBucket opens a remote's bucket: Open when nil, or a test's.
	OpenBucket func(ctx context.Context, url string) (Bucket, error)
}

// Open opens the bucket of a remote URL.
func (l *Link) Open(ctx context.Context, url string) (Bucket, error) {
	if l.OpenBucket != nil {
		return l.OpenBucket(ctx, url)
	}
	return Open(ctx, url)
}

// Default opens the state folder's default remote the first time it is
// asked, and returns l; nil when no remote is set.
func (l *Link) Default(fsys vfs.FS) *Link {
	l.once.Do(func() {
		rs, err := Remotes(fsys)
		if err != nil || len(rs) == 0 {
			l.Err = ErrNoneSet
			return
		}
		l.Remote = rs[0]
		if l.Machine, err = Machine(fsys); err != nil {
			l.Err = err
			return
		}
		l.Bucket, l.Err = l.Open(context.Background(), rs[0].URL)
	})
	if errors.Is(l.Err, ErrNoneSet) {
		return nil
	}
	return l
}

// Close closes the bucket, when one was opened.
func (l *Link) Close() error {
	if l.Bucket != nil {
		return l.Bucket.Close()
	}
	return nil
}

// Fetcher is what a workspace's object store asks for an object it lacks,
// or nil when the remote could not be opened.
func (l *Link) Fetcher() objects.Fetcher {
	if l.Err != nil {
		return nil
	}
	return &Fetcher{Bucket: l.Bucket}
}

// Lease takes session id's lease on the remote. Another machine's live
// lease is a *BusyError. A remote that cannot be opened or reached gives
// no lease and no error: say tells the user the session is open here
// without one (a later push finds out if another machine wrote it
// meanwhile, and changes neither copy). say also hears of a lease taken
// over from a machine whose lease lapsed, and of one lost later.
func (l *Link) Lease(ctx context.Context, id string, now func() time.Time, say func(string)) (*Held, error) {
	if l.Err != nil {
		say(fmt.Sprintf("remote %s cannot be opened (%v): the session's lease there is not checked", l.Remote.Name, l.Err))
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, LinkTimeout)
	defer cancel()
	host, _ := os.Hostname()
	lr := &Leaser{Bucket: l.Bucket, Machine: l.Machine, Host: host, PID: os.Getpid(), Now: now,
		Lost: func(_ string, err error) { say(err.Error()) }}
	h, err := lr.Acquire(ctx, id)
	var busy *BusyError
	if errors.As(err, &busy) {
		return nil, err
	}
	if err != nil {
		say(fmt.Sprintf("the lease of session %s on remote %s could not be checked (%v): it is open here without one", id, l.Remote.Name, err))
		return nil, nil
	}
	if h.TookOver != "" {
		say(fmt.Sprintf("session %s was last open on machine %s, whose lease lapsed: this machine holds it now", id, h.TookOver))
	}
	return h, nil
}

// ReleaseHeld lets a held lease go, within LinkTimeout.
func ReleaseHeld(h *Held) {
	ctx, cancel := context.WithTimeout(context.Background(), LinkTimeout)
	defer cancel()
	h.Release(ctx)
}
