// Package s3 registers Amazon S3 and S3-compatible servers as cairn
// remotes: s3://bucket[/prefix][?endpoint=…&region=…]. A program that
// embeds the engine and syncs to S3 imports it for its side effect:
//
//	import _ "cairn/engine/remotes/s3"
//
// The cairn command does; the hook program does not (the engine's
// engine/internal/remote/provider.go says why). A key's version is its
// ETag, and replace-if-unchanged is If-Match. A URL with an endpoint and
// no region gets region us-east-1 and path-style addressing, which
// S3-compatible servers expect. Credentials come from the AWS SDK's usual
// places (environment, profile files).
package s3

import (
	"context"
	"net/url"

	"github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager"
	"gocloud.dev/blob/s3blob"

	"cairn/engine/internal/remote"
	"cairn/engine/internal/remote/cloudblob"
)

func init() {
	remote.Register(remote.Provider{Scheme: "s3", Open: open})
}

func open(ctx context.Context, u *url.URL) (remote.Bucket, error) {
	q := u.Query()
	if q.Get("endpoint") != "" {
		if q.Get("region") == "" {
			q.Set("region", "us-east-1")
		}
		if q.Get("use_path_style") == "" && q.Get("s3ForcePathStyle") == "" {
			q.Set("use_path_style", "true")
		}
	}
	o := url.URL{Scheme: u.Scheme, Host: u.Host, RawQuery: q.Encode()}
	b, err := (&s3blob.URLOpener{}).OpenBucketURL(ctx, &o)
	if err != nil {
		return nil, err
	}
	return cloudblob.New(b, u, "s3", cloudblob.Conditions{IfVersion: ifVersion}), nil
}

func ifVersion(as func(any) bool, v string) error {
	var in *transfermanager.UploadObjectInput
	if !as(&in) {
		return cloudblob.NoIfVersion("s3")
	}
	in.IfMatch = &v
	return nil
}
