package remote

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"gocloud.dev/blob"
	"gocloud.dev/blob/azureblob"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/blob/gcsblob"
	"gocloud.dev/blob/s3blob"
)

// Schemes cairn opens a remote with.
var schemes = map[string]bool{"s3": true, "gs": true, "azblob": true, "file": true}

// CheckURL says whether raw is a remote URL cairn can open, without
// opening it: s3://bucket[/prefix][?endpoint=…&region=…],
// gs://bucket[/prefix], azblob://container[/prefix], file:///path.
// Credentials never go in it: each provider reads its own (environment,
// profile files); a URL carrying a user or a password is refused so that
// no secret is written into cairn's files.
func CheckURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w %q: %v", ErrBadURL, raw, err)
	}
	if !schemes[u.Scheme] {
		return nil, fmt.Errorf("%w %q: the scheme must be s3, gs, azblob or file", ErrBadURL, raw)
	}
	if u.User != nil {
		return nil, fmt.Errorf("%w %q: credentials do not go in the URL; the provider reads them from its usual places", ErrBadURL, raw)
	}
	if u.Scheme == "file" {
		if u.Host != "" && u.Host != "localhost" {
			return nil, fmt.Errorf("%w %q: a file URL names a local folder: file:///path", ErrBadURL, raw)
		}
		if !filepath.IsAbs(filepath.FromSlash(u.Path)) {
			return nil, fmt.Errorf("%w %q: a file URL needs an absolute path", ErrBadURL, raw)
		}
		if len(u.Query()) > 0 {
			return nil, fmt.Errorf("%w %q: a file URL takes no options", ErrBadURL, raw)
		}
		return u, nil
	}
	if u.Host == "" {
		return nil, fmt.Errorf("%w %q: no bucket named", ErrBadURL, raw)
	}
	for _, k := range []string{"access_key_id", "secret_access_key", "session_token", "aws_access_key_id", "aws_secret_access_key", "key", "secret", "password", "token"} {
		if u.Query().Has(k) {
			return nil, fmt.Errorf("%w %q: credentials do not go in the URL; the provider reads them from its usual places", ErrBadURL, raw)
		}
	}
	return u, nil
}

// Open opens the bucket of a remote URL (CheckURL). The path after an
// s3, gs or azblob bucket is a prefix every key goes under. An S3 URL
// with an endpoint and no region gets region us-east-1 and path-style
// addressing, which S3-compatible servers expect.
func Open(ctx context.Context, raw string) (Bucket, error) {
	u, err := CheckURL(raw)
	if err != nil {
		return nil, err
	}
	if u.Scheme == "file" {
		dir := filepath.FromSlash(u.Path)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("remote: %s: %w", raw, err)
		}
		b, err := fileblob.OpenBucket(dir, &fileblob.Options{NoTempDir: true, Metadata: fileblob.MetadataDontWrite, DirFileMode: 0o700})
		if err != nil {
			return nil, fmt.Errorf("remote: %s: %w", raw, err)
		}
		return &blobBucket{b: b, kind: "file", cond: fileLock(filepath.Join(dir, ".cairn-lock"))}, nil
	}
	prefix := strings.Trim(u.Path, "/")
	q := u.Query()
	if u.Scheme == "s3" && q.Get("endpoint") != "" {
		if q.Get("region") == "" {
			q.Set("region", "us-east-1")
		}
		if q.Get("use_path_style") == "" && q.Get("s3ForcePathStyle") == "" {
			q.Set("use_path_style", "true")
		}
	}
	open := url.URL{Scheme: u.Scheme, Host: u.Host, RawQuery: q.Encode()}
	var b *blob.Bucket
	switch u.Scheme {
	case "s3":
		b, err = (&s3blob.URLOpener{}).OpenBucketURL(ctx, &open)
	case "gs":
		b, err = blob.OpenBucket(ctx, open.String())
	case "azblob":
		b, err = blob.OpenBucket(ctx, open.String())
	}
	if err != nil {
		return nil, fmt.Errorf("remote: %s: %w", raw, err)
	}
	if prefix != "" {
		b = blob.PrefixedBucket(b, prefix+"/")
	}
	return &blobBucket{b: b, kind: u.Scheme}, nil
}

// The drivers are registered by their imports; these keep the linker
// from dropping the ones Open names only by scheme.
var (
	_ = gcsblob.Scheme
	_ = azureblob.Scheme
)
