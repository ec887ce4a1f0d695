package remote

import (
	"context"
	"io"
	"time"
)

// Bucket is what sync needs of an object store: whole keys written once
// or replaced on a condition, read whole or streamed, listed by prefix.
// Implementations: a folder (file.go), the cloud providers' over
// gocloud.dev/blob (engine/remotes, cloudblob), and Faulty for tests.
type Bucket interface {
	// Get reads key whole, with its attributes.
	Get(ctx context.Context, key string) ([]byte, Attrs, error)
	// Open streams key.
	Open(ctx context.Context, key string) (io.ReadCloser, error)
	// Put writes key from r (size bytes). With c.IfAbsent it fails with
	// ErrExists when key exists; with c.IfVersion it fails with
	// ErrChanged unless key exists at that version. Either way the write
	// is whole or absent.
	Put(ctx context.Context, key string, r io.Reader, size int64, c Cond) error
	// Attrs describes key.
	Attrs(ctx context.Context, key string) (Attrs, error)
	// List calls fn for each key under prefix, in key order.
	List(ctx context.Context, prefix string, fn func(Entry) error) error
	// Delete removes key; a missing key is ErrNotFound.
	Delete(ctx context.Context, key string) error
	Close() error
}

// Cond is the condition of a Put.
type Cond struct {
	IfAbsent  bool   // create only: fail with ErrExists if key exists
	IfVersion string // replace only the version read (Attrs.Version)
}

// Attrs describe a key: its size, its time by the server's clock, and
// its version, a token that changes with every write (an ETag, or a
// generation number on Google Cloud Storage).
type Attrs struct {
	Size    int64
	ModTime time.Time
	Version string
}

// Entry is one key of a listing. ModTime may be coarse (S3 lists whole
// seconds), so a key rewritten within one second at the same size is told
// apart by its MD5, where the provider lists one.
type Entry struct {
	Key     string
	Size    int64
	ModTime time.Time
	MD5     []byte
}
