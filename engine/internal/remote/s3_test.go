package remote_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"testing"

	_ "cairn/engine/remotes/s3"

	"cairn/engine/internal/remote"
	"cairn/internal/s3test"
)

func TestMain(m *testing.M) {
	code := m.Run()
	s3test.Stop()
	os.Exit(code)
}

// s3Bucket is a new bucket on the test S3 server.
func s3Bucket(t *testing.T) remote.Bucket {
	t.Helper()
	srv := s3test.Shared(t)
	b, err := remote.Open(context.Background(), srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func TestS3Conditions(t *testing.T) {
	b := s3Bucket(t)
	ctx := context.Background()
	if err := remote.ProbeConditions(ctx, b, "m"); err != nil {
		t.Fatalf("the S3 server's conditional writes: %v", err)
	}
	if err := remote.PutBytes(ctx, b, "k", []byte("one"), remote.Cond{IfAbsent: true}); err != nil {
		t.Fatal(err)
	}
	if err := remote.PutBytes(ctx, b, "k", []byte("two"), remote.Cond{IfAbsent: true}); !errors.Is(err, remote.ErrExists) {
		t.Fatalf("a second create: %v", err)
	}
	got, a, err := b.Get(ctx, "k")
	if err != nil || string(got) != "one" || a.Version == "" {
		t.Fatalf("get: %q %+v %v", got, a, err)
	}
	if err := remote.PutBytes(ctx, b, "k", []byte("three"), remote.Cond{IfVersion: `"0123"`}); !errors.Is(err, remote.ErrChanged) {
		t.Fatalf("a replace against a wrong version: %v", err)
	}
	if err := remote.PutBytes(ctx, b, "k", []byte("four"), remote.Cond{IfVersion: a.Version}); err != nil {
		t.Fatalf("a replace against the right version: %v", err)
	}
	if err := remote.PutBytes(ctx, b, "gone", []byte("x"), remote.Cond{IfVersion: a.Version}); !errors.Is(err, remote.ErrChanged) {
		t.Fatalf("a replace of a missing key: %v", err)
	}
	var keys []string
	if err := b.List(ctx, "", func(e remote.Entry) error { keys = append(keys, e.Key); return nil }); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(keys, "k") || slices.Contains(keys, "gone") {
		t.Fatalf("the listing after the writes: %q", keys)
	}
	if _, _, err := b.Get(ctx, "nothing"); !errors.Is(err, remote.ErrNotFound) {
		t.Fatalf("a missing key: %v", err)
	}
}

func TestLeaseS3(t *testing.T) { remote.LeaseSuite(t, s3Bucket) }
