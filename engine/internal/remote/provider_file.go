package remote

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
)

// fileProvider is a folder as a remote: file:///path. The file driver's
// own create-if-absent holds within one process only, so conditional
// writes take a lock file beside the keys (fileLock) and check the
// version themselves (blobBucket.putLocked).
func fileProvider() provider {
	return provider{open: openFile, ifVersion: noIfVersion("file")}
}

func openFile(ctx context.Context, u *url.URL) (*blob.Bucket, condLocker, error) {
	dir := filepath.FromSlash(u.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, err
	}
	b, err := fileblob.OpenBucket(dir, &fileblob.Options{NoTempDir: true, Metadata: fileblob.MetadataDontWrite, DirFileMode: 0o700})
	if err != nil {
		return nil, nil, err
	}
	return b, fileLock(filepath.Join(dir, ".cairn-lock")), nil
}

// noIfVersion is the ifVersion of a provider that has no
// replace-if-unchanged of its own.
func noIfVersion(kind string) func(func(any) bool, string) error {
	return func(func(any) bool, string) error {
		return fmt.Errorf("remote: %w: replace-if-unchanged on %s", ErrUnsupported, kind)
	}
}
