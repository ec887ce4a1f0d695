// Package cloudblob is a remote.Bucket over a gocloud.dev/blob bucket:
// what the cloud providers (engine/remotes/s3, azblob, gcs) share. Each
// provider opens its driver's bucket and says how a write replaces only
// the version read and what a key's version is; the rest is here.
//
// It sits below engine/internal/remote and is imported only by the
// provider packages, so gocloud.dev and the SDKs behind it are linked only
// into programs that import a provider (remote's provider.go says why).
package cloudblob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"cairn/engine/internal/remote"
)

// Conditions are a provider's conditional writes and versions.
type Conditions struct {
	// IfVersion sets the replace-if-unchanged condition v on a write,
	// through the driver's BeforeWrite hook (as).
	IfVersion func(as func(any) bool, v string) error
	// Version is a key's version token; nil: its ETag.
	Version func(a *blob.Attributes) string
}

// New is a remote.Bucket over b, a bucket of provider kind opened from u:
// the path after u's bucket is a prefix every key goes under.
func New(b *blob.Bucket, u *url.URL, kind string, c Conditions) remote.Bucket {
	if prefix := strings.Trim(u.Path, "/"); prefix != "" {
		b = blob.PrefixedBucket(b, prefix+"/")
	}
	return &bucket{b: b, kind: kind, c: c}
}

// NoIfVersion is the error of a write whose driver offered none of the
// types IfVersion sets a condition on.
func NoIfVersion(kind string) error {
	return fmt.Errorf("remote: %w: replace-if-unchanged on %s", remote.ErrUnsupported, kind)
}

type bucket struct {
	b    *blob.Bucket
	kind string // s3, gs, azblob
	c    Conditions
}

func wrapErr(op, key string, err error) error {
	if err == nil {
		return nil
	}
	switch gcerrors.Code(err) {
	case gcerrors.NotFound:
		return &remote.Error{Op: op, Key: key, Err: remote.ErrNotFound, Cause: err}
	case gcerrors.FailedPrecondition:
		return &remote.Error{Op: op, Key: key, Err: remote.ErrChanged, Cause: err}
	case gcerrors.PermissionDenied:
		return &remote.Error{Op: op, Key: key, Err: remote.ErrRefused, Cause: err}
	}
	return &remote.Error{Op: op, Key: key, Err: err}
}

func (b *bucket) Get(ctx context.Context, key string) ([]byte, remote.Attrs, error) {
	r, err := b.b.NewReader(ctx, key, nil)
	if err != nil {
		return nil, remote.Attrs{}, wrapErr("get", key, err)
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, remote.Attrs{}, wrapErr("get", key, err)
	}
	a := remote.Attrs{Size: r.Size(), ModTime: r.ModTime()}
	if attrs, err := b.Attrs(ctx, key); err == nil {
		a = attrs
	}
	return data, a, nil
}

func (b *bucket) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	r, err := b.b.NewReader(ctx, key, nil)
	if err != nil {
		return nil, wrapErr("get", key, err)
	}
	return r, nil
}

func (b *bucket) Attrs(ctx context.Context, key string) (remote.Attrs, error) {
	a, err := b.b.Attributes(ctx, key)
	if err != nil {
		return remote.Attrs{}, wrapErr("stat", key, err)
	}
	out := remote.Attrs{Size: a.Size, ModTime: a.ModTime, Version: a.ETag}
	if b.c.Version != nil {
		out.Version = b.c.Version(a)
	}
	return out, nil
}

func (b *bucket) List(ctx context.Context, prefix string, fn func(remote.Entry) error) error {
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
		if err := fn(remote.Entry{Key: o.Key, Size: o.Size, ModTime: o.ModTime, MD5: o.MD5}); err != nil {
			return err
		}
	}
}

func (b *bucket) Delete(ctx context.Context, key string) error {
	return wrapErr("delete", key, b.b.Delete(ctx, key))
}

func (b *bucket) Close() error { return b.b.Close() }

func (b *bucket) Put(ctx context.Context, key string, r io.Reader, size int64, c remote.Cond) error {
	opts := &blob.WriterOptions{IfNotExist: c.IfAbsent, ContentType: "application/octet-stream"}
	if c.IfVersion != "" {
		v := c.IfVersion
		opts.BeforeWrite = func(as func(any) bool) error {
			if b.c.IfVersion == nil {
				return NoIfVersion(b.kind)
			}
			return b.c.IfVersion(as, v)
		}
	}
	err := b.b.Upload(ctx, key, r, opts)
	if err != nil && c.IfAbsent && gcerrors.Code(err) == gcerrors.FailedPrecondition {
		return &remote.Error{Op: "put", Key: key, Err: remote.ErrExists, Cause: err}
	}
	if err != nil && c.IfVersion != "" && gcerrors.Code(err) == gcerrors.NotFound {
		return &remote.Error{Op: "put", Key: key, Err: remote.ErrChanged, Cause: err}
	}
	if err != nil && c.IfVersion != "" && conflict409(err) {
		return &remote.Error{Op: "put", Key: key, Err: remote.ErrChanged, Cause: err}
	}
	return wrapErr("put", key, err)
}

// conflict409 reports S3's ConditionalRequestConflict: another conditional
// write to the key was under way. It is a lost race, as a mismatch is.
func conflict409(err error) bool {
	var sc interface{ HTTPStatusCode() int }
	return errors.As(err, &sc) && sc.HTTPStatusCode() == 409
}
