package remote

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
)

// CheckURL says whether raw is a remote URL cairn can open, without
// opening it: s3://bucket[/prefix][?endpoint=…&region=…],
// gs://bucket[/prefix] (in a build with -tags gcs), azblob://container[/prefix],
// file:///path. Credentials never go in it: each provider reads its own
// (environment, profile files); a URL carrying a user or a password is
// refused so that no secret is written into cairn's files.
func CheckURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w %q: %v", ErrBadURL, raw, err)
	}
	_, known, built := providerOf(u.Scheme)
	if !known {
		return nil, fmt.Errorf("%w %q: the scheme must be s3, gs, azblob or file", ErrBadURL, raw)
	}
	if !built {
		return nil, fmt.Errorf("%w %q: %w", ErrBadURL, raw, notBuilt(u.Scheme))
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

// notBuilt says which provider this program lacks and how to get a
// program that has it (ErrNotBuilt).
func notBuilt(scheme string) error {
	for _, k := range knownSchemes {
		if k.scheme != scheme {
			continue
		}
		if scheme == "gs" {
			// Left out of the cairn command too unless built with the tag:
			// its gRPC and protobuf types alone cost ~20 ms of every start.
			return fmt.Errorf("%s %w (its libraries slow the start of every command, an agent's hook at each tool call); build a cairn with it: go install -tags gcs -buildvcs=true ./cmd/cairn", k.name, ErrNotBuilt)
		}
		return fmt.Errorf("%s %w (the cairn command has it; a program embedding the engine imports %s)", k.name, ErrNotBuilt, k.pkg)
	}
	return ErrNotBuilt
}

// Open opens the bucket of a remote URL (CheckURL). The path after an
// s3, gs or azblob bucket is a prefix every key goes under.
func Open(ctx context.Context, raw string) (Bucket, error) {
	u, err := CheckURL(raw)
	if err != nil {
		return nil, err
	}
	p, _, _ := providerOf(u.Scheme)
	b, err := p.Open(ctx, u)
	if err != nil {
		return nil, fmt.Errorf("remote: %s: %w", raw, err)
	}
	return b, nil
}
