package remote

import (
	"context"
	"net/url"
	"sync"
)

// A Provider is what cairn knows of one kind of object store, named by its
// URL scheme: how to open a bucket of it. file:// is built in (file.go);
// the cloud providers are packages of their own under engine/remotes
// (s3, azblob, gcs) that register themselves when a program imports them,
// as database/sql drivers do. Their libraries (the AWS and Azure SDKs,
// Google's gRPC and protobuf types) cost every start of a program that
// links them tens of milliseconds of package init, so the engine does not
// import them: the cairn command does, and the hook program, which an
// agent starts at every tool call, does not (it hands a session whose
// remote it cannot open over to the cairn command beside it).
type Provider struct {
	// Scheme is the URL scheme: s3, azblob, gs.
	Scheme string
	// Open opens the bucket of u, a URL CheckURL accepted, with the path
	// after the bucket as a prefix every key goes under.
	Open func(ctx context.Context, u *url.URL) (Bucket, error)
}

// providers are the providers registered in this program, by scheme. It
// is filled by the init of the provider packages a program imports and
// only read after: what a program can open is decided when it is linked,
// the same for every Store in it.
var providers = struct {
	sync.RWMutex
	m map[string]Provider
}{m: map[string]Provider{}}

// Register makes a provider's scheme one this program opens. A provider
// package calls it from its init; registering a scheme twice, or file,
// panics (two packages claiming one scheme is a build mistake).
func Register(p Provider) {
	providers.Lock()
	defer providers.Unlock()
	if _, dup := providers.m[p.Scheme]; dup || p.Scheme == "file" || p.Open == nil {
		panic("remote: provider " + p.Scheme + " registered twice or without Open")
	}
	providers.m[p.Scheme] = p
}

// knownSchemes are the schemes cairn has a provider for, in some build,
// with the package that registers each and the provider's name.
var knownSchemes = []struct{ scheme, pkg, name string }{
	{"s3", "cairn/engine/remotes/s3", "Amazon S3"},
	{"azblob", "cairn/engine/remotes/azblob", "Azure Blob Storage"},
	{"gs", "cairn/engine/remotes/gcs", "Google Cloud Storage"},
}

// providerOf is the provider of a URL scheme. known is false for a scheme
// cairn has no provider for; built is false for one this program was
// linked without.
func providerOf(scheme string) (p Provider, known, built bool) {
	if scheme == "file" {
		return Provider{Scheme: "file", Open: openFile}, true, true
	}
	providers.RLock()
	p, built = providers.m[scheme]
	providers.RUnlock()
	if built {
		return p, true, true
	}
	for _, k := range knownSchemes {
		if k.scheme == scheme {
			return Provider{}, true, false
		}
	}
	return Provider{}, false, false
}
