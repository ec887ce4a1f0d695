package remote

import (
	"context"
	"net/url"

	"github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager"
	"gocloud.dev/blob"
	"gocloud.dev/blob/s3blob"
)

// s3Provider is Amazon S3 or an S3-compatible server:
// s3://bucket[?endpoint=…&region=…]. A key's version is its ETag, and
// replace-if-unchanged is If-Match. An URL with an endpoint and no region
// gets region us-east-1 and path-style addressing, which S3-compatible
// servers expect.
func s3Provider() provider {
	return provider{open: openS3, ifVersion: s3IfVersion}
}

func openS3(ctx context.Context, u *url.URL) (*blob.Bucket, condLocker, error) {
	q := u.Query()
	if q.Get("endpoint") != "" {
		if q.Get("region") == "" {
			q.Set("region", "us-east-1")
		}
		if q.Get("use_path_style") == "" && q.Get("s3ForcePathStyle") == "" {
			q.Set("use_path_style", "true")
		}
	}
	open := url.URL{Scheme: u.Scheme, Host: u.Host, RawQuery: q.Encode()}
	b, err := (&s3blob.URLOpener{}).OpenBucketURL(ctx, &open)
	return b, nil, err
}

func s3IfVersion(as func(any) bool, v string) error {
	var in *transfermanager.UploadObjectInput
	if !as(&in) {
		return noIfVersion("s3")(as, v)
	}
	in.IfMatch = &v
	return nil
}
