package remote

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
)

// A lease is one owner of a session across machines, kept in the remote
// at leases/<session>.json:
//
//	{"v":1,"session":ID,"machine":M,"host":H,"pid":P,"at":T,"ttl_ms":N,
//	 "nonce":HEX,"released":true|absent}
//
// It is made with create-if-absent and changed only with
// replace-if-unchanged (the version read), so of two machines racing for
// it exactly one wins. Its owner renews it every TTL/3 while it runs and
// marks it released when it closes. Another machine takes it over only
// once it has lapsed: the age of a lease is measured by the server's clock
// (its time against the time the server gives a probe written now), never
// by comparing two machines' clocks, so a clock skewed by minutes neither
// steals a live lease nor keeps a dead one.

// DefaultTTL is how long a lease holds without renewal.
const DefaultTTL = 60 * time.Second

// Lease is the content of a lease object.
type Lease struct {
	V        int    `json:"v"`
	Session  string `json:"session"`
	Machine  string `json:"machine"`
	Host     string `json:"host,omitempty"`
	PID      int    `json:"pid,omitempty"`
	At       string `json:"at"`
	TTLms    int64  `json:"ttl_ms"`
	Nonce    string `json:"nonce"`
	Released bool   `json:"released,omitempty"`
}

// BusyError says another machine holds a session's lease.
type BusyError struct {
	Session string
	Machine string
	Host    string
	Age     time.Duration // since its last renewal, by the server's clock
}

func (e *BusyError) Error() string {
	who := e.Machine
	if e.Host != "" && e.Host != e.Machine {
		who += " (" + e.Host + ")"
	}
	return fmt.Sprintf("session %s is open on machine %s (its lease was renewed %s ago)", e.Session, who, e.Age.Round(time.Second))
}

// Leaser takes and keeps leases for one machine.
type Leaser struct {
	Bucket  Bucket
	Machine string
	Host    string
	PID     int
	TTL     time.Duration
	Now     func() time.Time
	// Lost, when set, hears that a held lease was taken by another
	// machine or could not be renewed for a whole TTL.
	Lost func(session string, err error)
}

func (l *Leaser) ttl() time.Duration {
	if l.TTL > 0 {
		return l.TTL
	}
	return DefaultTTL
}

func (l *Leaser) now() time.Time {
	if l.Now != nil {
		return l.Now().UTC()
	}
	return time.Now().UTC()
}

// Held is a lease this machine holds.
type Held struct {
	l       *Leaser
	id      string
	mu      sync.Mutex
	version string
	nonce   string
	// TookOver names the machine whose lapsed lease this one replaced.
	TookOver string
	stop     chan struct{}
	done     chan struct{}
}

func (l *Leaser) content(id, nonce string, released bool) []byte {
	b, _ := json.Marshal(Lease{V: 1, Session: id, Machine: l.Machine, Host: l.Host, PID: l.PID,
		At: l.now().Format("2006-01-02T15:04:05.000Z"), TTLms: l.ttl().Milliseconds(), Nonce: nonce, Released: released})
	return b
}

func newNonce() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ServerNow is the server's time now: the time it gives a probe object
// this machine writes.
func ServerNow(ctx context.Context, b Bucket, machine string) (time.Time, error) {
	key := leasesPrefix + ".clock/" + machine
	if err := putBytes(ctx, b, key, []byte(time.Now().UTC().Format(time.RFC3339Nano)), Cond{}); err != nil {
		return time.Time{}, err
	}
	a, err := b.Attrs(ctx, key)
	if err != nil {
		return time.Time{}, err
	}
	return a.ModTime, nil
}

// Acquire takes session id's lease: a new one, one this machine held
// (its process here gone: the caller holds the session's lock here), a
// released one, or one whose owner let it lapse. Another machine's live
// lease is a *BusyError.
func (l *Leaser) Acquire(ctx context.Context, id string) (*Held, error) {
	key := leaseKey(id)
	nonce := newNonce()
	for range 8 {
		data, a, err := l.Bucket.Get(ctx, key)
		var took string
		switch {
		case errors.Is(err, ErrNotFound):
			err = putBytes(ctx, l.Bucket, key, l.content(id, nonce, false), Cond{IfAbsent: true})
		case err != nil:
			return nil, err
		default:
			var cur Lease
			if json.Unmarshal(data, &cur) != nil {
				cur = Lease{}
			}
			if !cur.Released && cur.Machine != l.Machine && cur.Machine != "" {
				now, err := ServerNow(ctx, l.Bucket, l.Machine)
				if err != nil {
					return nil, err
				}
				ttl := time.Duration(cur.TTLms) * time.Millisecond
				if ttl <= 0 {
					ttl = l.ttl()
				}
				age := now.Sub(a.ModTime)
				if age < ttl {
					return nil, &BusyError{Session: id, Machine: cur.Machine, Host: cur.Host, Age: max(age, 0)}
				}
				took = cur.Machine
			}
			err = putBytes(ctx, l.Bucket, key, l.content(id, nonce, false), Cond{IfVersion: a.Version})
		}
		if errors.Is(err, ErrExists) || errors.Is(err, ErrChanged) {
			continue // another machine moved first: read again
		}
		if err != nil {
			return nil, err
		}
		// Read back the version written: the one a renewal must match.
		data, a, err = l.Bucket.Get(ctx, key)
		if err != nil {
			return nil, err
		}
		var got Lease
		if json.Unmarshal(data, &got) != nil || got.Nonce != nonce {
			continue
		}
		h := &Held{l: l, id: id, version: a.Version, nonce: nonce, TookOver: took, stop: make(chan struct{}), done: make(chan struct{})}
		go h.keep()
		return h, nil
	}
	return nil, fmt.Errorf("remote: the lease of session %s changed under every try: another machine keeps taking it", id)
}

// Renew writes the lease again, if it is still this one.
func (h *Held) Renew(ctx context.Context) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	key := leaseKey(h.id)
	err := putBytes(ctx, h.l.Bucket, key, h.l.content(h.id, h.nonce, false), Cond{IfVersion: h.version})
	if err != nil {
		return err
	}
	_, a, err := h.l.Bucket.Get(ctx, key)
	if err != nil {
		return err
	}
	h.version = a.Version
	return nil
}

// keep renews the lease every TTL/3 until Release.
func (h *Held) keep() {
	defer close(h.done)
	every := h.l.ttl() / 3
	t := time.NewTicker(every)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-h.stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), every)
		err := h.Renew(ctx)
		cancel()
		switch {
		case err == nil:
			last = time.Now()
		case errors.Is(err, ErrChanged):
			if h.l.Lost != nil {
				h.l.Lost(h.id, fmt.Errorf("the lease of session %s was taken by another machine: what this one writes now will not go up", h.id))
			}
			return
		case time.Since(last) > h.l.ttl():
			if h.l.Lost != nil {
				h.l.Lost(h.id, fmt.Errorf("the lease of session %s could not be renewed for %s (%v): another machine may take it over", h.id, h.l.ttl(), err))
			}
			last = time.Now()
		}
	}
}

// Release stops renewing and marks the lease released, if it is still
// this one, so another machine may take it at once.
func (h *Held) Release(ctx context.Context) error {
	select {
	case <-h.stop:
		return nil
	default:
		close(h.stop)
	}
	<-h.done
	h.mu.Lock()
	defer h.mu.Unlock()
	err := putBytes(ctx, h.l.Bucket, leaseKey(h.id), h.l.content(h.id, h.nonce, true), Cond{IfVersion: h.version})
	if errors.Is(err, ErrChanged) {
		return nil // taken over meanwhile: not ours to release
	}
	return err
}

// ReadLease reads session id's lease as it stands, with its age by the
// server's clock; nil when there is none.
func ReadLease(ctx context.Context, b Bucket, machine, id string) (*Lease, time.Duration, error) {
	data, a, err := b.Get(ctx, leaseKey(id))
	if errors.Is(err, ErrNotFound) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	var cur Lease
	if err := json.Unmarshal(data, &cur); err != nil {
		return nil, 0, fmt.Errorf("remote: lease of %s: %w", id, err)
	}
	now, err := ServerNow(ctx, b, machine)
	if err != nil {
		return &cur, 0, err
	}
	return &cur, max(now.Sub(a.ModTime), 0), nil
}
