//go:build !gcs

package remote

// gcsProvider: this build has no Google Cloud Storage (provider.go says
// why); CheckURL refuses gs:// URLs with ErrNoProvider.
func gcsProvider() (provider, bool) { return provider{}, false }
