package remote

import (
	"context"
	"errors"
	"io"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// Bucket is what sync needs of an object store: whole keys written once
// or replaced on a condition, read whole or streamed, listed by prefix.
// Implementations: the one over gocloud.dev/blob (Open), and Faulty for
// tests.
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

// blobBucket is a Bucket over a gocloud.dev/blob bucket of one provider.
type blobBucket struct {
	b    *blob.Bucket
	kind string   // s3, gs, azblob, file
	p    provider // the kind's conditions and versions (provider_*.go)
	// cond serialises conditional writes where the provider offers none
	// that holds across processes (the file driver): a lock file beside
	// the keys.
	cond condLocker
}

// condLocker takes a lock that every conditional write of a bucket holds.
type condLocker interface {
	lock(ctx context.Context) (unlock func(), err error)
}

func wrapErr(op, key string, err error) error {
	if err == nil {
		return nil
	}
	switch gcerrors.Code(err) {
	case gcerrors.NotFound:
		return &Error{Op: op, Key: key, Err: ErrNotFound, cause: err}
	case gcerrors.FailedPrecondition:
		return &Error{Op: op, Key: key, Err: ErrChanged, cause: err}
	case gcerrors.PermissionDenied:
		return &Error{Op: op, Key: key, Err: ErrRefused, cause: err}
	}
	return &Error{Op: op, Key: key, Err: err}
}

func (b *blobBucket) Get(ctx context.Context, key string) ([]byte, Attrs, error) {
	r, err := b.b.NewReader(ctx, key, nil)
	if err != nil {
		return nil, Attrs{}, wrapErr("get", key, err)
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, Attrs{}, wrapErr("get", key, err)
	}
	a := Attrs{Size: r.Size(), ModTime: r.ModTime()}
	if attrs, err := b.Attrs(ctx, key); err == nil {
		a = attrs
	}
	return data, a, nil
}

func (b *blobBucket) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	r, err := b.b.NewReader(ctx, key, nil)
	if err != nil {
		return nil, wrapErr("get", key, err)
	}
	return r, nil
}

func (b *blobBucket) Attrs(ctx context.Context, key string) (Attrs, error) {
	a, err := b.b.Attributes(ctx, key)
	if err != nil {
		return Attrs{}, wrapErr("stat", key, err)
	}
	out := Attrs{Size: a.Size, ModTime: a.ModTime, Version: a.ETag}
	if b.p.version != nil {
		out.Version = b.p.version(a)
	}
	return out, nil
}

func (b *blobBucket) List(ctx context.Context, prefix string, fn func(Entry) error) error {
	it := b.b.List(&blob.ListOptions{Prefix: prefix})
	for {
		o, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return wrapErr("list", prefix, err)
		}
		if o.IsDir {
			continue
		}
		if err := fn(Entry{Key: o.Key, Size: o.Size, ModTime: o.ModTime, MD5: o.MD5}); err != nil {
			return err
		}
	}
}

func (b *blobBucket) Delete(ctx context.Context, key string) error {
	return wrapErr("delete", key, b.b.Delete(ctx, key))
}

func (b *blobBucket) Close() error { return b.b.Close() }

func (b *blobBucket) Put(ctx context.Context, key string, r io.Reader, size int64, c Cond) error {
	if b.cond != nil && (c.IfAbsent || c.IfVersion != "") {
		return b.putLocked(ctx, key, r, size, c)
	}
	opts := &blob.WriterOptions{IfNotExist: c.IfAbsent, ContentType: "application/octet-stream"}
	if c.IfVersion != "" {
		v := c.IfVersion
		opts.BeforeWrite = func(as func(any) bool) error { return b.p.ifVersion(as, v) }
	}
	err := b.b.Upload(ctx, key, r, opts)
	if err != nil && c.IfAbsent && gcerrors.Code(err) == gcerrors.FailedPrecondition {
		return &Error{Op: "put", Key: key, Err: ErrExists, cause: err}
	}
	if err != nil && c.IfVersion != "" && gcerrors.Code(err) == gcerrors.NotFound {
		return &Error{Op: "put", Key: key, Err: ErrChanged, cause: err}
	}
	if err != nil && c.IfVersion != "" && conflict409(err) {
		return &Error{Op: "put", Key: key, Err: ErrChanged, cause: err}
	}
	return wrapErr("put", key, err)
}

// conflict409 reports S3's ConditionalRequestConflict: another conditional
// write to the key was under way. It is a lost race, as a mismatch is.
func conflict409(err error) bool {
	var sc interface{ HTTPStatusCode() int }
	return errors.As(err, &sc) && sc.HTTPStatusCode() == 409
}

// putLocked makes a conditional write under the bucket's lock: the check
// and the write (an atomic rename by the file driver) cannot interleave
// with another's.
func (b *blobBucket) putLocked(ctx context.Context, key string, r io.Reader, size int64, c Cond) error {
	unlock, err := b.cond.lock(ctx)
	if err != nil {
		return &Error{Op: "put", Key: key, Err: err}
	}
	defer unlock()
	a, err := b.Attrs(ctx, key)
	switch {
	case err == nil && c.IfAbsent:
		return &Error{Op: "put", Key: key, Err: ErrExists}
	case err == nil && a.Version != c.IfVersion:
		return &Error{Op: "put", Key: key, Err: ErrChanged}
	case errors.Is(err, ErrNotFound) && c.IfVersion != "":
		return &Error{Op: "put", Key: key, Err: ErrChanged}
	case err != nil && !errors.Is(err, ErrNotFound):
		return err
	}
	return wrapErr("put", key, b.b.Upload(ctx, key, r, &blob.WriterOptions{ContentType: "application/octet-stream"}))
}
