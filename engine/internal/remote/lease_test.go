package remote

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func fileBucket(t *testing.T) Bucket {
	t.Helper()
	b, err := Open(context.Background(), "file://"+filepath.ToSlash(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

const sid = "0b5c2f9e-3f1a-4c55-9d7e-2a1b3c4d5e6f"

// leaseSuite runs the lease cases against a bucket (a file:// one here,
// the S3 server in s3_test.go).
func leaseSuite(t *testing.T, open func(t *testing.T) Bucket) {
	t.Run("race", func(t *testing.T) {
		b := open(t)
		ctx := context.Background()
		const n = 8
		var (
			wg   sync.WaitGroup
			mu   sync.Mutex
			won  []string
			busy []*BusyError
		)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				l := &Leaser{Bucket: b, Machine: "m" + string(rune('a'+i))}
				h, err := l.Acquire(ctx, sid)
				mu.Lock()
				defer mu.Unlock()
				var be *BusyError
				switch {
				case err == nil:
					won = append(won, l.Machine)
					t.Cleanup(func() { h.Release(ctx) })
				case errors.As(err, &be):
					busy = append(busy, be)
				default:
					t.Errorf("%s: %v", l.Machine, err)
				}
			}()
		}
		wg.Wait()
		if len(won) != 1 || len(busy) != n-1 {
			t.Fatalf("%d machines won the lease (%v), %d were told it is busy", len(won), won, len(busy))
		}
		for _, be := range busy {
			if be.Machine != won[0] {
				t.Fatalf("a loser was told %s owns it; %s does", be.Machine, won[0])
			}
		}
	})
	t.Run("release and lapse", func(t *testing.T) {
		b := open(t)
		ctx := context.Background()
		// The TTL leaves the checks of a live lease a wide margin on a
		// loaded machine (and over a server that dates writes to the
		// second); the lapse is waited for, never assumed.
		const ttl = 4 * time.Second
		a := &Leaser{Bucket: b, Machine: "ma", TTL: ttl}
		// Machine B's clock runs ten minutes ahead: it must not take a live
		// lease for a lapsed one. Machine C's runs ten minutes behind.
		skewB := &Leaser{Bucket: b, Machine: "mb", Now: func() time.Time { return time.Now().Add(10 * time.Minute) }}
		skewC := &Leaser{Bucket: b, Machine: "mc", Now: func() time.Time { return time.Now().Add(-10 * time.Minute) }}
		h, err := a.Acquire(ctx, sid)
		if err != nil {
			t.Fatal(err)
		}
		var be *BusyError
		if _, err := skewB.Acquire(ctx, sid); !errors.As(err, &be) || be.Machine != "ma" || be.Age > time.Minute {
			t.Fatalf("a skewed clock's try at a live lease: %v", err)
		}
		// Released: taken at once.
		if err := h.Release(ctx); err != nil {
			t.Fatal(err)
		}
		hc, err := skewC.Acquire(ctx, sid)
		if err != nil || hc.TookOver != "" {
			t.Fatalf("a released lease: %v (took over %q)", err, hc.TookOver)
		}
		// C dies without releasing: its lease lapses by the server's
		// clock, and only then may another machine take it over.
		hc.l.TTL = ttl
		hc.Renew(ctx)
		close(hc.stop)
		<-hc.done
		if _, err := a.Acquire(ctx, sid); !errors.As(err, &be) || be.Machine != "mc" {
			t.Fatalf("a live lease after C stopped renewing: %v", err)
		}
		var ha *Held
		for deadline := time.Now().Add(ttl + 20*time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			if ha, err = a.Acquire(ctx, sid); err == nil {
				break
			}
		}
		if err != nil || ha.TookOver != "mc" {
			t.Fatalf("the lapsed lease was not taken over: %v", err)
		}
		// C, back, finds it taken: its renewal fails and says so.
		if err := hc.Renew(ctx); !errors.Is(err, ErrChanged) {
			t.Fatalf("the old owner's renewal after a take-over: %v", err)
		}
		ha.Release(ctx)
	})
}

func TestLeaseFile(t *testing.T) { leaseSuite(t, fileBucket) }

func TestProbeConditionsFile(t *testing.T) {
	if err := ProbeConditions(context.Background(), fileBucket(t), "m"); err != nil {
		t.Fatal(err)
	}
}

func TestProbeRefusesAServerIgnoringConditions(t *testing.T) {
	b := &condless{fileBucket(t)}
	err := ProbeConditions(context.Background(), b, "m")
	if !errors.Is(err, ErrUnsupported) {
		t.Fatalf("a server that ignores If-None-Match: %v", err)
	}
}

type condless struct{ Bucket }

func (b *condless) Put(ctx context.Context, key string, r io.Reader, size int64, c Cond) error {
	return b.Bucket.Put(ctx, key, r, size, Cond{})
}
