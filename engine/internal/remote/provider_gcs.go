//go:build gcs

package remote

import (
	"context"
	"fmt"
	"net/url"
	"strconv"

	"cloud.google.com/go/storage"
	"gocloud.dev/blob"
	"gocloud.dev/blob/gcsblob"
)

// gcsProvider is Google Cloud Storage: gs://bucket, in a build with
// -tags gcs (provider.go says why it is left out by default). A key's
// version is its generation number, and replace-if-unchanged is a
// generation-match condition. Credentials are the application default
// credentials, as the driver's default opener reads them.
func gcsProvider() (provider, bool) {
	return provider{open: openGCS, ifVersion: gcsIfVersion, version: gcsVersion}, true
}

func openGCS(ctx context.Context, u *url.URL) (*blob.Bucket, condLocker, error) {
	open := url.URL{Scheme: gcsblob.Scheme, Host: u.Host, RawQuery: u.Query().Encode()}
	b, err := blob.OpenBucket(ctx, open.String())
	return b, nil, err
}

func gcsIfVersion(as func(any) bool, v string) error {
	gen, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return fmt.Errorf("remote: bad version %q", v)
	}
	var h **storage.ObjectHandle
	if !as(&h) {
		return noIfVersion("gs")(as, v)
	}
	*h = (*h).If(storage.Conditions{GenerationMatch: gen})
	return nil
}

func gcsVersion(a *blob.Attributes) string {
	var oa storage.ObjectAttrs
	if a.As(&oa) {
		return strconv.FormatInt(oa.Generation, 10)
	}
	return a.ETag
}
