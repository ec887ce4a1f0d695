package remote

import (
	"context"
	"io"
	"strings"
	"sync"
)

// Faulty wraps a Bucket and fails the requests its rules name, for tests
// of what a sync, a pull or a lease does when a server refuses, goes
// away, or a transfer is cut.
type Faulty struct {
	B     Bucket
	mu    sync.Mutex
	rules []*Rule
	// Calls counts the requests by op.
	Calls map[string]int
}

// Rule fails requests of Op ("put", "get", "stat", "list", "delete", or
// "" for any) on keys starting with Prefix, after Skip of them went
// through, Times times (0: every time after).
type Rule struct {
	Op     string
	Prefix string
	Skip   int
	Times  int
	Err    error
	// Cut, on a put, reads half the body before it fails: a transfer cut
	// mid-object. Nothing is written (a store's put is whole or absent).
	Cut  bool
	seen int
	hit  int
}

// NewFaulty wraps b.
func NewFaulty(b Bucket) *Faulty { return &Faulty{B: b, Calls: map[string]int{}} }

// Fail adds a rule.
func (f *Faulty) Fail(r Rule) *Rule {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.Err == nil {
		r.Err = ErrGone
	}
	f.rules = append(f.rules, &r)
	return f.rules[len(f.rules)-1]
}

// Heal drops every rule.
func (f *Faulty) Heal() {
	f.mu.Lock()
	f.rules = nil
	f.mu.Unlock()
}

func (f *Faulty) check(op, key string) *Rule {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Calls[op]++
	for _, r := range f.rules {
		if (r.Op == "" || r.Op == op) && strings.HasPrefix(key, r.Prefix) {
			r.seen++
			if r.seen <= r.Skip || r.Times > 0 && r.hit >= r.Times {
				continue
			}
			r.hit++
			return r
		}
	}
	return nil
}

func (f *Faulty) Get(ctx context.Context, key string) ([]byte, Attrs, error) {
	if r := f.check("get", key); r != nil {
		return nil, Attrs{}, &Error{Op: "get", Key: key, Err: r.Err}
	}
	return f.B.Get(ctx, key)
}

func (f *Faulty) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	if r := f.check("get", key); r != nil {
		return nil, &Error{Op: "get", Key: key, Err: r.Err}
	}
	return f.B.Open(ctx, key)
}

func (f *Faulty) Put(ctx context.Context, key string, rd io.Reader, size int64, c Cond) error {
	if r := f.check("put", key); r != nil {
		if r.Cut && size > 0 {
			io.CopyN(io.Discard, rd, size/2)
		}
		return &Error{Op: "put", Key: key, Err: r.Err}
	}
	return f.B.Put(ctx, key, rd, size, c)
}

func (f *Faulty) Attrs(ctx context.Context, key string) (Attrs, error) {
	if r := f.check("stat", key); r != nil {
		return Attrs{}, &Error{Op: "stat", Key: key, Err: r.Err}
	}
	return f.B.Attrs(ctx, key)
}

func (f *Faulty) List(ctx context.Context, prefix string, fn func(Entry) error) error {
	if r := f.check("list", prefix); r != nil {
		return &Error{Op: "list", Key: prefix, Err: r.Err}
	}
	return f.B.List(ctx, prefix, fn)
}

func (f *Faulty) Delete(ctx context.Context, key string) error {
	if r := f.check("delete", key); r != nil {
		return &Error{Op: "delete", Key: key, Err: r.Err}
	}
	return f.B.Delete(ctx, key)
}

func (f *Faulty) Close() error { return f.B.Close() }
