package remote

import (
	"context"
	"net/url"

	"gocloud.dev/blob"
)

// A provider is what cairn knows of one kind of object store, named by
// its URL scheme: how to open a bucket, how to make a write replace only
// the version read, and what a key's version is. Each has a file of its
// own (provider_*.go), so a build can leave one out with its libraries:
// Google Cloud Storage's pull in gRPC and a few hundred protobuf types,
// whose package init costs every start of the cairn command about 20 ms,
// an agent's hook at every tool call included. It is built with -tags gcs.
type provider struct {
	// open opens the bucket of u, a URL CheckURL accepted; the prefix
	// after the bucket is added by Open.
	open func(ctx context.Context, u *url.URL) (*blob.Bucket, condLocker, error)
	// ifVersion sets the replace-if-unchanged condition v on a write,
	// through the driver's BeforeWrite hook (as).
	ifVersion func(as func(any) bool, v string) error
	// version is a key's version token; nil: its ETag.
	version func(a *blob.Attributes) string
}

// providerOf is the provider of a URL scheme. ok is false for a scheme
// cairn does not know; built is false for one it knows but this build
// left out (gs without -tags gcs).
func providerOf(scheme string) (p provider, ok, built bool) {
	switch scheme {
	case "file":
		return fileProvider(), true, true
	case "s3":
		return s3Provider(), true, true
	case "azblob":
		return azblobProvider(), true, true
	case "gs":
		p, built := gcsProvider()
		return p, true, built
	}
	return provider{}, false, false
}
