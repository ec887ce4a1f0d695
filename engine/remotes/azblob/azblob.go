// Package azblob registers Azure Blob Storage as cairn remotes:
// azblob://container[/prefix]. A program that embeds the engine and syncs
// to Azure imports it for its side effect:
//
//	import _ "cairn/engine/remotes/azblob"
//
// The cairn command does; the hook program does not (the engine's
// engine/internal/remote/provider.go says why). A key's version is its
// ETag, and replace-if-unchanged is If-Match. The account and credentials
// come from the AZURE_STORAGE_* variables, as the driver's default opener
// reads them.
package azblob

import (
	"context"
	"net/url"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	azblobblob "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"gocloud.dev/blob"
	"gocloud.dev/blob/azureblob"

	"cairn/engine/internal/remote"
	"cairn/engine/internal/remote/cloudblob"
)

func init() {
	remote.Register(remote.Provider{Scheme: "azblob", Open: open})
}

func open(ctx context.Context, u *url.URL) (remote.Bucket, error) {
	o := url.URL{Scheme: azureblob.Scheme, Host: u.Host, RawQuery: u.Query().Encode()}
	b, err := blob.OpenBucket(ctx, o.String())
	if err != nil {
		return nil, err
	}
	return cloudblob.New(b, u, "azblob", cloudblob.Conditions{IfVersion: ifVersion}), nil
}

func ifVersion(as func(any) bool, v string) error {
	var o *azblob.UploadStreamOptions
	if !as(&o) {
		return cloudblob.NoIfVersion("azblob")
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
