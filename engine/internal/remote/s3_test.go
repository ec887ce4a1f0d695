package remote

import (
	"context"
	"errors"
	"os"
	"slices"
	"testing"

	"cairn/internal/s3test"
)

func TestMain(m *testing.M) {
	code := m.Run()
	s3test.Stop()
	os.Exit(code)
}

// s3Bucket is a new bucket on the test S3 server.
func s3Bucket(t *testing.T) Bucket {
	t.Helper()
	srv := s3test.Shared(t)
	b, err := Open(context.Background(), srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func TestS3Conditions(t *testing.T) {
	b := s3Bucket(t)
	ctx := context.Background()
	if err := ProbeConditions(ctx, b, "m"); err != nil {
		t.Fatalf("the S3 server's conditional writes: %v", err)
	}
	if err := putBytes(ctx, b, "k", []byte("one"), Cond{IfAbsent: true}); err != nil {
		t.Fatal(err)
	}
	if err := putBytes(ctx, b, "k", []byte("two"), Cond{IfAbsent: true}); !errors.Is(err, ErrExists) {
		t.Fatalf("a second create: %v", err)
	}
	got, a, err := b.Get(ctx, "k")
	if err != nil || string(got) != "one" || a.Version == "" {
		t.Fatalf("get: %q %+v %v", got, a, err)
	}
	if err := putBytes(ctx, b, "k", []byte("three"), Cond{IfVersion: `"0123"`}); !errors.Is(err, ErrChanged) {
		t.Fatalf("a replace against a wrong version: %v", err)
	}
	if err := putBytes(ctx, b, "k", []byte("four"), Cond{IfVersion: a.Version}); err != nil {
		t.Fatalf("a replace against the right version: %v", err)
	}
	if err := putBytes(ctx, b, "gone", []byte("x"), Cond{IfVersion: a.Version}); !errors.Is(err, ErrChanged) {
		t.Fatalf("a replace of a missing key: %v", err)
	}
	var keys []string
	if err := b.List(ctx, "", func(e Entry) error { keys = append(keys, e.Key); return nil }); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(keys, "k") || slices.Contains(keys, "gone") {
		t.Fatalf("the listing after the writes: %q", keys)
	}
	if _, _, err := b.Get(ctx, "nothing"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a missing key: %v", err)
	}
}

func TestLeaseS3(t *testing.T) { leaseSuite(t, s3Bucket) }
