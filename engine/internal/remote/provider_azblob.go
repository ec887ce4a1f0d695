package remote

import (
	"context"
	"net/url"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	azblobblob "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"gocloud.dev/blob"
	"gocloud.dev/blob/azureblob"
)

// azblobProvider is Azure Blob Storage: azblob://container. A key's
// version is its ETag, and replace-if-unchanged is If-Match. The
// account and credentials come from the AZURE_STORAGE_* variables, as the
// driver's default opener reads them.
func azblobProvider() provider {
	return provider{open: openAzblob, ifVersion: azblobIfVersion}
}

func openAzblob(ctx context.Context, u *url.URL) (*blob.Bucket, condLocker, error) {
	open := url.URL{Scheme: azureblob.Scheme, Host: u.Host, RawQuery: u.Query().Encode()}
	b, err := blob.OpenBucket(ctx, open.String())
	return b, nil, err
}

func azblobIfVersion(as func(any) bool, v string) error {
	var o *azblob.UploadStreamOptions
	if !as(&o) {
		return noIfVersion("azblob")(as, v)
	}
	etag := azcore.ETag(v)
	if o.AccessConditions == nil {
		o.AccessConditions = &azblob.AccessConditions{}
	}
	if o.AccessConditions.ModifiedAccessConditions == nil {
		o.AccessConditions.ModifiedAccessConditions = &azblobblob.ModifiedAccessConditions{}
	}
	o.AccessConditions.ModifiedAccessConditions.IfMatch = &etag
	return nil
}
