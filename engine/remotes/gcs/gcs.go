//go:build gcs

// Package gcs registers Google Cloud Storage as cairn remotes:
// gs://bucket[/prefix]. It is built only with -tags gcs: its gRPC and
// protobuf types cost every start of a program that links them about
// 20 ms of package init, an agent's hook at each tool call included. The
// cairn command imports it when built with the tag (cmd/cairn/gcs.go); a
// program that embeds the engine imports it for its side effect:
//
//	import _ "cairn/engine/remotes/gcs"
//
// A key's version is its generation number, and replace-if-unchanged is a
// generation-match condition. Credentials are the application default
// credentials, as the driver's default opener reads them.
package gcs

import (
	"context"
	"fmt"
	"net/url"
	"strconv"

	"cloud.google.com/go/storage"
	"gocloud.dev/blob"
	"gocloud.dev/blob/gcsblob"

	"cairn/engine/internal/remote"
	"cairn/engine/internal/remote/cloudblob"
)

func init() {
	remote.Register(remote.Provider{Scheme: "gs", Open: open})
}

func open(ctx context.Context, u *url.URL) (remote.Bucket, error) {
	o := url.URL{Scheme: gcsblob.Scheme, Host: u.Host, RawQuery: u.Query().Encode()}
	b, err := blob.OpenBucket(ctx, o.String())
	if err != nil {
		return nil, err
	}
	return cloudblob.New(b, u, "gs", cloudblob.Conditions{IfVersion: ifVersion, Version: version}), nil
}

func ifVersion(as func(any) bool, v string) error {
	gen, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return fmt.Errorf("remote: bad version %q", v)
	}
	var h **storage.ObjectHandle
	if !as(&h) {
		return cloudblob.NoIfVersion("gs")
	}
	*h = (*h).If(storage.Conditions{GenerationMatch: gen})
	return nil
}

func version(a *blob.Attributes) string {
	var oa storage.ObjectAttrs
	if a.As(&oa) {
		return strconv.FormatInt(oa.Generation, 10)
	}
	return a.ETag
}
